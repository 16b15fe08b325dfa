/* forces.c: the force elements of a scene, compiled against one model.
 *
 * Sign conventions (every element; docs/scene-format.md repeats them):
 *   - wrenches are added to fext in each body's frame about its origin (dynamics.h), joint forces
 *     to tau; world-axes forces at body points are moved there with the co-adjoint action;
 *   - central gravity, about a planet centre c0 with mu, on every body of mass m, centre of mass
 *     c_w and rotational inertia I_c (r = c_w - c0, exact point-mass field to second order in the
 *     body's size, MacCullagh):
 *       U   = -mu m / r - mu / (2 r^3) (tr I_c - 3 r.I_c r / r^2)
 *       f   = -mu m r / r^3 - 3 mu / (2 r^5) ((tr I_c - 5 r.I_c r / r^2) r + 2 I_c r)   at c_w
 *       tau = 3 mu / r^5 (r x I_c r)                                                    about c_w
 *     (f, tau) = -grad U exactly, so energy is conserved; the moment about c0 is zero;
 *   - joint spring on joint j with xi = q (-) rest = log(rest^-1 q) (hg_joint_difference):
 *       U = 1/2 k |xi|^2,  tau = -k J_r(xi)^-T xi - c v
 *     J_r^-T xi = xi for R^n and SO(3) joints (tau = -k xi - c v, as scene.h states); for a free
 *     joint (SE(3)) the J_r^-T factor makes tau the exact gradient of U. U has a kink where the
 *     rotation from rest reaches pi (the logarithm's cut), and nowhere else;
 *   - marker spring from marker a to marker b: d = p_b - p_a, L = |d|, u = d / L,
 *       s = k (L - L0) + c dL/dt  (tension > 0);  force -s u on b at p_b, +s u on a at p_a
 *       U = 1/2 k (L - L0)^2
 *     compression_only: only while L < L0, and s is clamped to s <= 0 (it never pulls); U = 0
 *     while L >= L0. Nothing acts at L = 0 (no direction);
 *   - drag at point x of a body (centre of pressure; parachute: the marker origin), world velocity
 *     v of that point, still air: F = -1/2 rho(h) CdA |v| v at the point, rho = rho0 exp(-h / H),
 *     h = |p - centre| - radius (radius > 0) or p_z (radius 0); H = 0 means uniform density;
 *   - thrust: body-frame force and torque about the body origin for t_on <= t < t_off;
 *   - contact between sides A and B, at each contact point p of depth d > 0 and unit normal n
 *     from A into B (collision.h), v_r = velocity of B's point at p minus A's, dd/dt = -v_r.n:
 *       F_n = max(0, k d^e (1 + 3/2 c dd/dt))                                 (Hunt-Crossley)
 *       v_t = v_r - (v_r.n) n,   f_t = -mu F_n v_t / sqrt(|v_t|^2 + v_s^2)    (regularized Coulomb)
 *     F = F_n n + f_t on B at p, -F on A at p;  U = k d^(e+1) / (e+1);  power_nc = F.v_r + k d^e dd/dt
 *     (everything but the elastic part: damping, friction, and the elastic energy a clamped F_n
 *     lets go).
 * Names: bodies by hg_model_body, joints by hg_model_joint, markers in s->marker and then their
 * bodies. A body or joint absent from the model makes its element inert (it adds nothing and has
 * zero potential and power) when the scene explains the absence: the name is still in s->builder,
 * or the scene has topology events (remove, detach, attach, undock) or captures, which remove
 * bodies and create docking joints as it runs (the loader checked every name at load), or, for
 * hg_forces_renew, the previous compile had the element. Otherwise it is an unknown name: an error
 * naming the element and its file:line:column. An unknown marker is always an error; a rest that
 * does not fit its joint is an error, or inert in those same cases (a joint detached into a free
 * joint). hg_forces_renew also turns off a joint spring whose joint changed type or now hangs from
 * the world; hg_forces_new cannot see that (a detached joint without a rest keeps a spring towards
 * the identity pose in the world). Nothing is ever applied to the world body. */
#include "forces.h"

#include "collision.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* one compiled element */
typedef struct hg_force_elem {
  char *name;
  hg_force_type type;
  int enabled;
  int inert;           /* a body or joint it needs is absent */
  int body, body_b;    /* drag, thrust, parachute body; spring: bodies of markers a and b */
  double xa[3], xb[3]; /* points in body coordinates: cop, parachute marker, spring markers */
  int joint;           /* joint spring */
  int jtype;           /* joint spring: its joint's type, -1 when unresolved */
  int jroot;           /* joint spring: its joint hangs from the world */
  double rest[HG_JOINT_MAXNQ];
  double k, c, L0;
  int compression_only;
  int anchor_com;      /* spring: end a at the free-flying bodies' centre of mass + xa (world) */
  double mu, centre[3];
  double cd_area;
  hg_atmosphere atm;
  double force[3], torque[3], t_on, t_off;
  int nside[2], *side[2]; /* contact: the bodies of each side present in the model */
  int nskip, *skip;       /* contact: body pairs never in contact (2 nskip) */
  int pair[2];            /* contact: (parent, child) when its sides name one body each and one
                             is the other's parent (hg_contact_names_pair); -1 otherwise */
  double expo, diss, mu_f, v_s;
  int impulsive;          /* contact: impacts are Newton impulses of restitution e_imp */
  double e_imp, v_min;
} hg_force_elem;

struct hg_forces {
  int n;
  hg_force_elem *e;
  int nbody;
  double *mass; /* nbody: body masses */
  double *com;  /* 3 nbody: centres of mass, body coordinates */
  double *Ic;   /* 6 nbody: inertia about the centre of mass, body axes (xx yy zz xy xz yz) */
  hg_collision *coll;  /* collision geometry of the model, when a contact element needs it (its
                          buffers are the contact elements' scratch) */
  double *motion;      /* 12 nbody: hg_forces_contact_step's scratch, each body's world twist and
                          its rate (hg_body_world_motion) */
  int *touching, ntouching; /* the bodies on any contact element's sides, each once (> 0) */
};

/* the state of a marker spring */
typedef struct hg_spring_state {
  double pa[3], pb[3]; /* world positions of the markers */
  double u[3];         /* unit line from a to b */
  double L, Ldot;
  double s, se;        /* total and elastic tension */
  int active;          /* it acts (a direction exists, and in contact when compression only) */
} hg_spring_state;

/* ---- small helpers ---- */

/* y = S x for a symmetric 3x3 S stored xx yy zz xy xz yz */
static void hg_sym3_mulv(const double S[6], const double x[3], double y[3]) {
  y[0] = S[0] * x[0] + S[3] * x[1] + S[4] * x[2];
  y[1] = S[3] * x[0] + S[1] * x[1] + S[5] * x[2];
  y[2] = S[4] * x[0] + S[5] * x[1] + S[2] * x[2];
}

/* fext_i += the wrench of a world-axes force F (and torque tq, may be NULL) at point x of body i
 * (body coordinates): rotated into body axes, f = R^T F, its moment about the origin
 * n = R^T tq + x x f */
static void hg_add_point_force(const hg_data *d, int i, const double x[3], const double F[3],
                               const double tq[3], double *fext) {
  if (i <= 0) return;
  const hg_se3 *T = &d->T_world[i];
  double w[6] = {0, 0, 0, 0, 0, 0};
  if (tq) hg_m3_mulTv(T->R, tq, w);
  hg_m3_mulTv(T->R, F, w + 3);
  hg_v3_cross_add(x, w + 3, w);
  for (int r = 0; r < 6; r++) fext[6 * i + r] += w[r];
}

/* world position p and world velocity vel of point x (body coordinates) of body i */
static void hg_point_state(const hg_data *d, int i, const double x[3], double p[3],
                           double vel[3]) {
  const hg_se3 *T = &d->T_world[i];
  double Rx[3];
  hg_m3_mulv(T->R, x, Rx);
  for (int r = 0; r < 3; r++) p[r] = T->p[r] + Rx[r];
  if (!vel) return;
  if (i <= 0) {
    vel[0] = vel[1] = vel[2] = 0;
    return;
  }
  /* d->V = (w, v) is the body's twist in its tree's frame (world axes, origin at the tree root's
   * origin), where the point sits at r = p_tree + R x: it moves at v + w x r */
  const double *V = d->V[i], *pt = d->T_tree[i].p;
  double r[3] = {pt[0] + Rx[0], pt[1] + Rx[1], pt[2] + Rx[2]};
  for (int k = 0; k < 3; k++) vel[k] = V[3 + k];
  hg_v3_cross_add(V, r, vel);
}

/* ---- central gravity ---- */

/* potential of body i (w NULL), or its body wrench about the origin into w (then returns 0) */
static double hg_central_body(const hg_forces *f, const hg_force_elem *e, const hg_data *d, int i,
                              double w[6]) {
  const hg_se3 *T = &d->T_world[i];
  const double *c = f->com + 3 * i, *Ic = f->Ic + 6 * i;
  double mass = f->mass[i], rw[3], r[3], Ir[3];
  if (w) memset(w, 0, 6 * sizeof(double));
  if (mass <= 0) return 0;

  /* r = c_w - centre in body axes: R^T (p - centre) + c */
  for (int k = 0; k < 3; k++) rw[k] = T->p[k] - e->centre[k];
  hg_m3_mulTv(T->R, rw, r);
  for (int k = 0; k < 3; k++) r[k] += c[k];
  double r2 = hg_v3_dot(r, r);
  if (r2 <= 0) return 0;
  double rn = sqrt(r2);

  /* MacCullagh: A = tr I_c, B = r.I_c r */
  hg_sym3_mulv(Ic, r, Ir);
  double A = Ic[0] + Ic[1] + Ic[2], B = hg_v3_dot(r, Ir);
  if (!w) return -e->mu * mass / rn - e->mu / (2 * r2 * rn) * (A - 3 * B / r2);

  /* force at the centre of mass, gradient torque about it, then the moment about the origin
   * (k3 = mu / r^3, k5 = mu / r^5: two divisions for the whole wrench); U is not needed here */
  double ir2 = 1 / r2, k3 = e->mu * ir2 / rn, k5 = k3 * ir2;
  double a1 = -mass * k3, a2 = -1.5 * k5, a3 = A - 5 * B * ir2;
  for (int k = 0; k < 3; k++) w[3 + k] = a1 * r[k] + a2 * (a3 * r[k] + 2 * Ir[k]);
  hg_v3_cross(r, Ir, w);
  for (int k = 0; k < 3; k++) w[k] *= 3 * k5;
  hg_v3_cross_add(c, w + 3, w);
  return 0;
}

/* central gravity on every body */
static void hg_central_apply(const hg_forces *f, const hg_force_elem *e, const hg_data *d,
                             double *fext) {
  for (int i = 1; i < f->nbody; i++) {
    double w[6];
    if (f->mass[i] <= 0) continue;
    hg_central_body(f, e, d, i, w);
    for (int r = 0; r < 6; r++) fext[6 * i + r] += w[r];
  }
}

/* potential of central gravity */
static double hg_central_potential(const hg_forces *f, const hg_force_elem *e, const hg_data *d) {
  double U = 0;
  for (int i = 1; i < f->nbody; i++) U += hg_central_body(f, e, d, i, NULL);
  return U;
}

/* ---- joint spring ---- */

/* xi = q (-) rest; returns g = J_r(xi)^-T xi (the gradient of |xi|^2 / 2 in the joint
 * velocity): xi itself on every joint but a free one, whose g is written to gf */
static inline const double *hg_jspring_delta(const hg_model *m, const hg_force_elem *e,
                                             const double *q, double xi[6], double gf[6]) {
  const hg_joint *j = &m->jnt[e->joint];
  hg_joint_difference(j, e->rest, q + m->q_adr[e->joint], xi);
  if (j->type != HG_JOINT_FREE) return xi;
  /* SE(3): g = J_r^-T xi */
  double J[36];
  hg_se3_jr_inv(xi, J);
  for (int k = 0; k < 6; k++) {
    gf[k] = 0;
    for (int r = 0; r < 6; r++) gf[k] += J[6 * r + k] * xi[r];
  }
  return gf;
}

/* damper power -c |v|^2 */
static double hg_jspring_power(const hg_model *m, const hg_force_elem *e, const double *v) {
  double s = 0;
  int va = m->v_adr[e->joint];
  for (int k = 0; k < m->jnt_nv[e->joint]; k++) s += v[va + k] * v[va + k];
  return -e->c * s;
}

/* tau -= k g + c v on the joint's DoFs; returns the damper's power -c |v|^2
 * (hg_forces_apply_power), summed in the same pass: calling hg_jspring_power for it walked the
 * velocities again and cost the humanoid scene 261 instructions per right-hand side (1.30x ABA
 * against 1.29x). k and c are read once: the stores to tau could alias them */
static double hg_jspring_apply(const hg_model *m, const hg_force_elem *e, const double *q,
                               const double *v, double *tau) {
  double xi[6], gf[6], k = e->k, c = e->c, s = 0;
  int va = m->v_adr[e->joint], nv = m->jnt_nv[e->joint];
  const double *g = hg_jspring_delta(m, e, q, xi, gf);
  for (int i = 0; i < nv; i++) {
    double w = v[va + i];
    tau[va + i] -= k * g[i] + c * w;
    s += w * w;
  }
  return -c * s;
}

/* U = k |xi|^2 / 2 */
static double hg_jspring_potential(const hg_model *m, const hg_force_elem *e, const double *q) {
  double xi[6], gf[6], s = 0;
  hg_jspring_delta(m, e, q, xi, gf);
  for (int k = 0; k < m->jnt_nv[e->joint]; k++) s += xi[k] * xi[k];
  return 0.5 * e->k * s;
}

/* ---- marker spring ---- */

/* 1 when body b belongs to a tree that hangs from the world by a free joint */
static int hg_free_flying(const hg_model *m, int b) {
  return b > 0 && m->jnt[m->root[b]].type == HG_JOINT_FREE;
}

/* the centre of mass c = sum m_b c_b / M of the free-flying bodies, world, its velocity
 * (when vel is not NULL) and their mass M (0: none) */
static double hg_free_com(const hg_model *m, const hg_data *d, double c[3], double vel[3]) {
  double M = 0, p[3], v[3], x[3];
  c[0] = c[1] = c[2] = 0;
  if (vel) vel[0] = vel[1] = vel[2] = 0;
  for (int b = 1; b < m->nbody; b++) {
    double mb = m->inertia[b].m;
    if (!hg_free_flying(m, b) || !(mb > 0)) continue;
    for (int k = 0; k < 3; k++) x[k] = m->inertia[b].h[k] / mb;
    hg_point_state(d, b, x, p, vel ? v : NULL);
    for (int k = 0; k < 3; k++) c[k] += mb * p[k];
    if (vel)
      for (int k = 0; k < 3; k++) vel[k] += mb * v[k];
    M += mb;
  }
  for (int k = 0; M > 0 && k < 3; k++) c[k] /= M;
  for (int k = 0; M > 0 && vel && k < 3; k++) vel[k] /= M;
  return M;
}

/* geometry, rate and tensions of a marker spring (velocities only when with_v) */
static void hg_spring_eval(const hg_model *m, const hg_data *d, const hg_force_elem *e,
                           int with_v, hg_spring_state *st) {
  double va[3], vb[3];
  if (e->anchor_com) { /* end a: the free-flying bodies' centre of mass + xa, moving with it */
    hg_free_com(m, d, st->pa, with_v ? va : NULL);
    for (int k = 0; k < 3; k++) st->pa[k] += e->xa[k];
  } else {
    hg_point_state(d, e->body, e->xa, st->pa, with_v ? va : NULL);
  }
  hg_point_state(d, e->body_b, e->xb, st->pb, with_v ? vb : NULL);

  /* line a -> b */
  for (int k = 0; k < 3; k++) st->u[k] = st->pb[k] - st->pa[k];
  st->L = hg_v3_norm(st->u);
  st->Ldot = st->s = st->se = 0;
  st->active = st->L > 0 && (!e->compression_only || st->L < e->L0);
  if (!st->active) return;
  for (int k = 0; k < 3; k++) st->u[k] /= st->L;

  /* tensions; a compression-only spring never pulls */
  st->se = e->k * (st->L - e->L0);
  if (with_v) {
    for (int k = 0; k < 3; k++) vb[k] -= va[k];
    st->Ldot = hg_v3_dot(st->u, vb);
  }
  st->s = st->se + e->c * st->Ldot;
  if (e->compression_only && st->s > 0) st->s = 0;
}

/* power of the non-elastic part of the tension: -(s - s_elastic) dL/dt */
static double hg_spring_state_power(const hg_spring_state *st) {
  return st->active ? -(st->s - st->se) * st->Ldot : 0;
}

/* equal and opposite forces at the two markers; returns their non-elastic power (one
 * evaluation of the spring for both) */
static double hg_spring_apply(const hg_model *m, const hg_data *d, const hg_force_elem *e,
                              double *fext) {
  hg_spring_state st;
  double Fa[3], Fb[3];
  hg_spring_eval(m, d, e, 1, &st);
  if (!st.active) return 0;
  for (int k = 0; k < 3; k++) {
    Fa[k] = st.s * st.u[k];
    Fb[k] = -Fa[k];
  }
  if (e->anchor_com) { /* F_a spread over the free-flying bodies as m_b / M, at their centres */
    double M = 0, x[3], Fm[3];
    for (int b = 1; b < m->nbody; b++)
      if (hg_free_flying(m, b) && m->inertia[b].m > 0) M += m->inertia[b].m;
    for (int b = 1; b < m->nbody && M > 0; b++) {
      double mb = m->inertia[b].m;
      if (!hg_free_flying(m, b) || !(mb > 0)) continue;
      for (int k = 0; k < 3; k++) x[k] = m->inertia[b].h[k] / mb, Fm[k] = Fa[k] * mb / M;
      hg_add_point_force(d, b, x, Fm, NULL, fext);
    }
  } else {
    hg_add_point_force(d, e->body, e->xa, Fa, NULL, fext);
  }
  hg_add_point_force(d, e->body_b, e->xb, Fb, NULL, fext);
  return hg_spring_state_power(&st);
}

/* U = k (L - L0)^2 / 2 (0 out of contact for compression only) */
static double hg_spring_potential(const hg_model *m, const hg_data *d, const hg_force_elem *e) {
  hg_spring_state st;
  hg_spring_eval(m, d, e, 0, &st);
  if (e->compression_only && st.L >= e->L0) return 0;
  return 0.5 * e->k * (st.L - e->L0) * (st.L - e->L0);
}

/* the spring's non-elastic power alone */
static double hg_spring_power(const hg_model *m, const hg_data *d, const hg_force_elem *e) {
  hg_spring_state st;
  hg_spring_eval(m, d, e, 1, &st);
  return hg_spring_state_power(&st);
}

/* ---- drag and parachute ---- */

/* air density at world point p */
static double hg_air_density(const hg_atmosphere *atm, const double p[3]) {
  double h = p[2];
  if (atm->radius > 0) {
    double r[3] = {p[0] - atm->centre[0], p[1] - atm->centre[1], p[2] - atm->centre[2]};
    h = hg_v3_norm(r) - atm->radius;
  }
  return atm->scale_height > 0 ? atm->rho0 * exp(-h / atm->scale_height) : atm->rho0;
}

/* drag force F (world axes) at point xa of the element's body, and the point's velocity */
static void hg_drag_force(const hg_model *m, const hg_data *d, const hg_force_elem *e, double F[3],
                          double vel[3]) {
  double p[3];
  hg_point_state(d, e->body, e->xa, p, vel);
  double a = -0.5 * hg_air_density(&e->atm, p) * e->cd_area * hg_v3_norm(vel);
  for (int k = 0; k < 3; k++) F[k] = a * vel[k];
}

/* drag at the point; returns its power F . v (one evaluation for both) */
static double hg_drag_apply(const hg_model *m, const hg_data *d, const hg_force_elem *e,
                            double *fext) {
  double F[3], vel[3];
  hg_drag_force(m, d, e, F, vel);
  hg_add_point_force(d, e->body, e->xa, F, NULL, fext);
  return hg_v3_dot(F, vel);
}

/* drag power F . v */
static double hg_drag_power(const hg_model *m, const hg_data *d, const hg_force_elem *e) {
  double F[3], vel[3];
  hg_drag_force(m, d, e, F, vel);
  return hg_v3_dot(F, vel);
}

/* ---- thrust ---- */

/* 1 while the thruster fires */
static int hg_thrust_on(const hg_force_elem *e, double t) {
  return t >= e->t_on && t < e->t_off && e->body > 0;
}

/* body-frame torque and force */
static void hg_thrust_apply(const hg_force_elem *e, double t, double *fext) {
  if (!hg_thrust_on(e, t)) return;
  for (int k = 0; k < 3; k++) {
    fext[6 * e->body + k] += e->torque[k];
    fext[6 * e->body + 3 + k] += e->force[k];
  }
}

/* thrust power V_body . (torque, force) */
static double hg_thrust_power(const hg_model *m, const hg_data *d, const hg_force_elem *e,
                              double t) {
  double V[6];
  if (!hg_thrust_on(e, t)) return 0;
  hg_body_twist(m, d, e->body, V);
  return hg_v3_dot(V, e->torque) + hg_v3_dot(V + 3, e->force);
}

/* ---- contact ---- */

/* the world velocity of the material point of body i at world position p */
static void hg_world_point_velocity(const hg_model *m, const hg_data *d, int i, const double p[3],
                                    double vel[3]) {
  double x[3], r[3], pw[3];
  for (int k = 0; k < 3; k++) r[k] = p[k] - d->T_world[i].p[k];
  hg_m3_mulTv(d->T_world[i].R, r, x);
  hg_point_state(d, i, x, pw, vel);
}

/* fext += the world force F at world point p of body i */
static void hg_add_world_force(const hg_data *d, int i, const double p[3], const double F[3],
                               double *fext) {
  double x[3], r[3];
  if (i <= 0) return;
  for (int k = 0; k < 3; k++) r[k] = p[k] - d->T_world[i].p[k];
  hg_m3_mulTv(d->T_world[i].R, r, x);
  hg_add_point_force(d, i, x, F, NULL, fext);
}

/* Restitution of the Hunt-Crossley law. Scaled by the impact speed v and the length
 * (m v^2 / k)^(1/(n+1)), an impact is x'' = -x^n (1 + 3/2 cv x') from x = 0, x' = 1 (x the
 * depth), so the restitution (the speed it leaves with) depends on cv = c v and n alone. RK4
 * with steps of 1/500 of the scaled time; the exit speed is interpolated where x returns to 0. */
double hg_contact_restitution(double cv, double n) {
  const double h = 2e-3;
  double x = 0, v = 1;
  for (long it = 0; it < 10000000L; it++) {
    double kx[4], kv[4];
    for (int st = 0; st < 4; st++) {
      double a = st == 0 ? 0 : st == 3 ? 1 : 0.5;
      double xs = x + (st ? a * h * kx[st - 1] : 0), vs = v + (st ? a * h * kv[st - 1] : 0);
      double F = xs > 0 ? pow(xs, n) * (1 + 1.5 * cv * vs) : 0;
      kx[st] = vs;
      kv[st] = -(F > 0 ? F : 0);
    }
    double xn = x + h / 6 * (kx[0] + 2 * kx[1] + 2 * kx[2] + kx[3]);
    double vn = v + h / 6 * (kv[0] + 2 * kv[1] + 2 * kv[2] + kv[3]);
    /* (the depth always returns to 0: the clamped force vanishes with it, so the body leaves) */
    if (xn <= 0 && it > 0) return -(v + (vn - v) * x / (x - xn)); /* speed at x = 0 */
    x = xn, v = vn;
  }
  return 0;
}

double hg_contact_dissipation(double e, double v, double n) {
  /* e falls from 1 (cv = 0) as cv grows: bisect cv on a log scale, then c = cv / v */
  double lo = 0, hi = 1;
  while (hg_contact_restitution(hi, n) > e && hi < 1e6) lo = hi, hi *= 4;
  for (int it = 0; it < 50; it++) {
    double mid = 0.5 * (lo + hi);
    if (hg_contact_restitution(mid, n) > e) lo = mid;
    else hi = mid;
  }
  return 0.5 * (lo + hi) / v;
}

/* what one evaluation of a contact element found */
typedef struct hg_contact_sum {
  int n;            /* contact points */
  double U;         /* elastic energy */
  double P_nc;      /* power of everything but the elastic force */
  double F[3];      /* total force on side B, world */
  double deepest;   /* the largest depth, m */
  double p[3];      /* the deepest point, world */
  int body_a, body_b; /* its bodies (-1: no contact) */
} hg_contact_sum;

/* The parent-child pair contact element e tests all the same (collision.h's keep): the pair it
 * names alone on its sides while the joint between them moves (not fixed, not locked in
 * d->mode). 1 with the pair in keep[0..2), or 0. */
static int hg_contact_keep(const hg_model *m, const hg_data *d, const hg_force_elem *e,
                           int keep[2]) {
  int child = e->pair[1];
  if (child < 1 || child >= m->nbody || m->jnt_nv[child] == 0 || d->mode[child] == HG_MODE_LOCKED)
    return 0;
  keep[0] = e->pair[0], keep[1] = child;
  return 1;
}

/* 1 when body i is on side s of contact element e */
static int hg_contact_on_side(const hg_force_elem *e, int s, int i) {
  for (int b = 0; b < e->nside[s]; b++)
    if (e->side[s][b] == i) return 1;
  return 0;
}

/* every contact point's Hunt-Crossley and friction forces, added to fext when not NULL */
static void hg_contact_eval(const hg_forces *f, const hg_model *m, const hg_data *d,
                            const hg_force_elem *e, double *fext, hg_contact_sum *sum) {
  const hg_contact *pts;
  int keep[2], nkeep = hg_contact_keep(m, d, e, keep);
  memset(sum, 0, sizeof *sum);
  sum->body_a = sum->body_b = -1;
  sum->n = hg_collision_contacts(f->coll, m, d->T_world, e->side[0], e->nside[0], e->side[1],
                                 e->nside[1], e->skip, e->nskip, keep, nkeep, &pts);
  for (int k = 0; k < sum->n; k++) {
    const hg_contact *c = &pts[k];
    double va[3], vb[3], vr[3], vt[3], F[3], Fa[3];

    /* relative velocity of the two material points at p, its normal and tangential parts */
    hg_world_point_velocity(m, d, c->body_a, c->pos, va);
    hg_world_point_velocity(m, d, c->body_b, c->pos, vb);
    for (int r = 0; r < 3; r++) vr[r] = vb[r] - va[r];
    double vn = hg_v3_dot(vr, c->normal), ddot = -vn;
    for (int r = 0; r < 3; r++) vt[r] = vr[r] - vn * c->normal[r];

    /* normal force (never pulling) and friction */
    double elastic = e->k * pow(c->depth, e->expo);
    double Fn = elastic * (1 + 1.5 * e->diss * ddot);
    if (Fn < 0) Fn = 0;
    double ft = -e->mu_f * Fn / sqrt(hg_v3_dot(vt, vt) + e->v_s * e->v_s);
    for (int r = 0; r < 3; r++) {
      F[r] = Fn * c->normal[r] + ft * vt[r];
      Fa[r] = -F[r];
      sum->F[r] += F[r];
    }
    if (fext) {
      hg_add_world_force(d, c->body_b, c->pos, F, fext);
      hg_add_world_force(d, c->body_a, c->pos, Fa, fext);
    }

    /* energy: elastic storage, and the power of the rest */
    sum->U += elastic * c->depth / (e->expo + 1);
    sum->P_nc += hg_v3_dot(F, vr) + elastic * ddot;
    if (c->depth > sum->deepest) {
      sum->deepest = c->depth;
      memcpy(sum->p, c->pos, sizeof sum->p);
      sum->body_a = c->body_a;
      sum->body_b = c->body_b;
    }
  }
}

/* ---- compiling ---- */

/* what compiling needs to resolve names and report errors */
typedef struct hg_resolve {
  const hg_force_input *in;
  const hg_model *m;
  const hg_force_spec *spec;
  int lenient; /* an absent name may have been removed (or not docked yet): inert, no error */
  hg_error *err;
} hg_resolve;

/* err = "file:line:column: force element 'name': what 'name'" (or just what); returns -1 */
static int hg_resolve_fail(const hg_resolve *rs, const char *what, const char *name) {
  const hg_src *src = &rs->spec->src;
  if (!rs->err) return -1;
  int n = snprintf(rs->err->msg, sizeof rs->err->msg, "%s:%d:%d: force element '%s': %s",
                   src->file ? src->file : "(scene)", src->line, src->column,
                   rs->spec->name ? rs->spec->name : "", what);
  if (name && n > 0 && (size_t)n < sizeof rs->err->msg)
    snprintf(rs->err->msg + n, sizeof rs->err->msg - (size_t)n, " '%s'", name);
  return -1;
}

/* body index of name; -2 when absent but known (removed: inert); -1 (err set) when unknown */
static int hg_resolve_body(const hg_resolve *rs, const char *name) {
  if (!name) return hg_resolve_fail(rs, "names no body", NULL);
  int i = hg_model_body(rs->m, name);
  if (i >= 0) return i;
  if (rs->lenient || (rs->in->bodies && hg_builder_body(rs->in->bodies, name))) return -2;
  return hg_resolve_fail(rs, "unknown body", name);
}

/* a marker of the input by name, or NULL */
static const hg_marker *hg_find_marker(const hg_force_input *in, const char *name) {
  for (int k = 0; name && k < in->nmarker; k++)
    if (in->marker[k].name && strcmp(in->marker[k].name, name) == 0) return &in->marker[k];
  return NULL;
}

/* body of a marker and the marker origin in body coordinates; as hg_resolve_body */
static int hg_resolve_marker(const hg_resolve *rs, const char *name, double x[3]) {
  const hg_marker *mk = hg_find_marker(rs->in, name);
  if (!name) return hg_resolve_fail(rs, "names no marker", NULL);
  if (!mk) return hg_resolve_fail(rs, "unknown marker", name);
  memcpy(x, mk->pose.p, 3 * sizeof(double));
  return hg_resolve_body(rs, mk->body);
}

/* 1 when the input's bodies have a joint of this name on a body of the same name (the default
 * joint name; the builder is looked up by body) */
static int hg_builder_has_joint(const hg_force_input *in, const char *name) {
  const hg_body_spec *b = in->bodies ? hg_builder_body(in->bodies, name) : NULL;
  return b && b->joint_name && strcmp(b->joint_name, name) == 0;
}

/* joint spring: joint index, type check and rest configuration; 1 when inert */
static int hg_resolve_joint(const hg_resolve *rs, const hg_force_elem *prev, hg_force_elem *e) {
  const hg_force_spec *sp = rs->spec;
  if (!sp->joint) return hg_resolve_fail(rs, "names no joint", NULL);
  int j = hg_model_joint(rs->m, sp->joint);
  if (j < 0 && (rs->lenient || hg_builder_has_joint(rs->in, sp->joint))) return 1;
  if (j < 0) return hg_resolve_fail(rs, "unknown joint", sp->joint);
  const hg_joint *jt = &rs->m->jnt[j];
  int root = rs->m->parent[j] == 0;
  /* a joint that changed type or was detached to the world since prev loses its spring */
  if (prev && prev->jtype >= 0 && (prev->jtype != (int)jt->type || (root && !prev->jroot)))
    return 1;
  int nq = rs->m->jnt_nq[j];
  if (sp->nrest && sp->nrest != nq && rs->lenient) return 1;
  if (sp->nrest && (sp->nrest != nq || !sp->rest)) {
    char what[96];
    snprintf(what, sizeof what, "rest has %d values; needs %d for the %s joint", sp->nrest, nq,
             hg_joint_type_name(jt->type));
    return hg_resolve_fail(rs, what, sp->joint);
  }
  e->joint = j;
  e->jtype = (int)jt->type;
  e->jroot = root;
  hg_joint_neutral(jt, e->rest);
  if (sp->nrest) memcpy(e->rest, sp->rest, (size_t)nq * sizeof(double));
  hg_joint_normalize(jt, e->rest);
  return 0;
}

/* copies the numbers of a spec */
static void hg_elem_numbers(const hg_force_spec *sp, hg_force_elem *e) {
  e->type = sp->type;
  e->enabled = sp->enabled;
  e->k = sp->stiffness;
  e->c = sp->damping;
  e->L0 = sp->free_length;
  e->compression_only = sp->compression_only;
  e->anchor_com = sp->anchor_com;
  e->mu = sp->mu;
  memcpy(e->centre, sp->centre, sizeof e->centre);
  e->cd_area = sp->cd_area;
  e->atm = sp->atm;
  memcpy(e->force, sp->force, sizeof e->force);
  memcpy(e->torque, sp->torque, sizeof e->torque);
  e->t_on = sp->t_on;
  e->t_off = sp->t_off;
  e->expo = sp->exponent;
  e->diss = sp->dissipation; /* (or from a restitution: hg_forces_build) */
  e->mu_f = sp->friction;
  e->impulsive = sp->impulsive;
  e->e_imp = sp->restitution;
  e->v_min = sp->min_impact_speed;
  e->v_s = sp->stiction_velocity;
}

/* body indices of names[0..n) present in the model into out (malloc'd); absent ones are
 * dropped; 0, or -1 with err set on an unknown name or no memory */
static int hg_resolve_bodies(const hg_resolve *rs, char *const *names, int n, int **out,
                             int *count) {
  *count = 0;
  if (!(*out = malloc((size_t)(n > 0 ? n : 1) * sizeof **out)))
    return hg_resolve_fail(rs, "out of memory", NULL);
  for (int k = 0; k < n; k++) {
    int i = hg_resolve_body(rs, names[k]);
    if (i == -1) return -1;
    if (i >= 0) (*out)[(*count)++] = i;
  }
  return 0;
}

/* contact: the two sides' bodies, the excluded pairs of which both bodies are present, and the
 * parent and child it names alone on its sides */
static int hg_resolve_contact(const hg_resolve *rs, hg_force_elem *e) {
  const hg_force_spec *sp = rs->spec;
  for (int k = 0; k < 2; k++)
    if (hg_resolve_bodies(rs, sp->side[k], sp->nside[k], &e->side[k], &e->nside[k])) return -1;
  e->pair[0] = e->pair[1] = -1;
  if (hg_contact_names_pair(sp) && e->nside[0] == 1 && e->nside[1] == 1) {
    int i = e->side[0][0], j = e->side[1][0];
    if (j > 0 && rs->m->parent[j] == i) e->pair[0] = i, e->pair[1] = j;
    if (i > 0 && rs->m->parent[i] == j) e->pair[0] = j, e->pair[1] = i;
  }
  e->nskip = 0;
  if (!(e->skip = malloc((size_t)(2 * sp->nexclude + 1) * sizeof *e->skip)))
    return hg_resolve_fail(rs, "out of memory", NULL);
  for (int k = 0; k < sp->nexclude; k++) {
    int i = hg_resolve_body(rs, sp->exclude[2 * k]), j = hg_resolve_body(rs, sp->exclude[2 * k + 1]);
    if (i == -1 || j == -1) return -1;
    if (i < 0 || j < 0) continue; /* (a body of the pair is absent) */
    e->skip[2 * e->nskip] = i;
    e->skip[2 * e->nskip + 1] = j;
    e->nskip++;
  }
  return 0;
}

/* resolves the names of one element; 0, or -1 with err set */
static int hg_elem_resolve(const hg_resolve *rs, const hg_force_elem *prev, hg_force_elem *e) {
  const hg_force_spec *sp = rs->spec;
  int a = 0, b = 0;
  e->body = e->body_b = e->joint = 0;
  e->jtype = -1;
  switch (sp->type) {
  case HG_FORCE_CENTRAL_GRAVITY:
    break;
  case HG_FORCE_JOINT_SPRING:
    a = hg_resolve_joint(rs, prev, e);
    if (a > 0) a = -2;
    break;
  case HG_FORCE_SPRING:
    a = hg_resolve_marker(rs, sp->marker_a, e->xa);
    if (a == -1) return -1;
    b = hg_resolve_marker(rs, sp->marker_b, e->xb);
    break;
  case HG_FORCE_DRAG:
    memcpy(e->xa, sp->cop, sizeof e->xa);
    /* fall through */
  case HG_FORCE_THRUST:
    a = hg_resolve_body(rs, sp->body);
    break;
  case HG_FORCE_PARACHUTE:
    a = hg_resolve_marker(rs, sp->marker, e->xa);
    break;
  case HG_FORCE_CONTACT:
    if (hg_resolve_contact(rs, e)) return -1;
    a = e->nside[0] && e->nside[1] ? 0 : -2;
    break;
  default:
    return hg_resolve_fail(rs, "has an unknown type", NULL);
  }
  if (a == -1 || b == -1) return -1;
  e->inert = a == -2 || b == -2;
  if (sp->type != HG_FORCE_JOINT_SPRING) {
    e->body = a > 0 ? a : 0;
    e->body_b = b > 0 ? b : 0;
  }
  return 0;
}

/* checks the numbers a formula would turn into NaN or growth; 0, or -1 with err set */
static int hg_elem_check(const hg_resolve *rs) {
  const hg_force_spec *sp = rs->spec;
  int atm = sp->type == HG_FORCE_DRAG || sp->type == HG_FORCE_PARACHUTE;
  if (atm && !(sp->atm.scale_height >= 0)) return hg_resolve_fail(rs, "negative", "scale_height");
  if (atm && !(sp->atm.radius >= 0)) return hg_resolve_fail(rs, "negative", "radius");
  if (sp->type == HG_FORCE_SPRING && !(sp->free_length >= 0))
    return hg_resolve_fail(rs, "negative", "free_length");
  return 0;
}

/* per-body mass, centre of mass and central inertia of the model */
static int hg_forces_bodies(hg_forces *f, const hg_model *m) {
  f->nbody = m->nbody;
  f->mass = calloc((size_t)m->nbody, sizeof(double));
  f->com = calloc((size_t)m->nbody * 3, sizeof(double));
  f->Ic = calloc((size_t)m->nbody * 6, sizeof(double));
  f->motion = calloc((size_t)m->nbody * 12, sizeof(double));
  if (!f->mass || !f->com || !f->Ic || !f->motion) return -1;
  for (int i = 1; i < m->nbody; i++) {
    f->mass[i] = m->inertia[i].m;
    hg_inertia_com(&m->inertia[i], f->com + 3 * i, f->Ic + 6 * i);
  }
  return 0;
}

double hg_forces_central_field(const hg_forces *f, const double x[3], double g[3],
                               double centre[3]) {
  double phi = 0;
  int first = 1;
  if (g) g[0] = g[1] = g[2] = 0;
  if (centre) centre[0] = centre[1] = centre[2] = 0;
  for (int k = 0; f && k < f->n; k++) {
    const hg_force_elem *e = &f->e[k];
    if (e->type != HG_FORCE_CENTRAL_GRAVITY || !e->enabled) continue;
    if (centre && first) memcpy(centre, e->centre, 3 * sizeof(double));
    first = 0;
    /* phi = -mu / |r|, g = -mu r / |r|^3, r = x - centre */
    double r[3] = {x[0] - e->centre[0], x[1] - e->centre[1], x[2] - e->centre[2]};
    double n = hg_v3_norm(r);
    phi -= e->mu / n;
    for (int a = 0; g && a < 3; a++) g[a] -= e->mu * r[a] / (n * n * n);
  }
  return phi;
}

double hg_forces_next_switch(const hg_forces *f, double t) {
  double next = INFINITY;
  for (int k = 0; f && k < f->n; k++) {
    const hg_force_elem *e = &f->e[k];
    if (e->type != HG_FORCE_THRUST || !e->enabled || e->body <= 0) continue;
    if (e->t_on > t) next = fmin(next, e->t_on);
    if (e->t_off > t) next = fmin(next, e->t_off);
  }
  return next;
}

int hg_forces_switches_at(const hg_forces *f, double t) {
  for (int k = 0; f && k < f->n; k++) {
    const hg_force_elem *e = &f->e[k];
    if (e->type == HG_FORCE_THRUST && e->enabled && e->body > 0 && (e->t_on == t || e->t_off == t))
      return 1;
  }
  return 0;
}

void hg_forces_body_inertia(hg_forces *f, const hg_model *m, int i) {
  if (!f || i < 1 || i >= f->nbody) return;
  f->mass[i] = m->inertia[i].m;
  hg_inertia_com(&m->inertia[i], f->com + 3 * i, f->Ic + 6 * i);
}

/* 1 (err set) when a side of contact element e has present bodies and none of them has a
 * collision shape */
static int hg_contact_shapeless(const hg_forces *f, const hg_force_spec *sp, const hg_force_elem *e,
                                hg_error *err) {
  for (int s = 0; s < 2; s++) {
    int shapes = 0;
    for (int b = 0; b < e->nside[s]; b++) shapes += hg_collision_count(f->coll, e->side[s][b]);
    if (e->nside[s] == 0 || shapes > 0) continue;
    hg_error_set(err, "%s:%d:%d: force element '%s': the bodies of its %s side (%s%s) have no "
                 "collision shape; mark their geometry 'collision: true'",
                 sp->src.file ? sp->src.file : "(scene)", sp->src.line, sp->src.column, e->name,
                 s ? "second" : "first", sp->side[s][0], sp->nside[s] > 1 ? ", ..." : "");
    return 1;
  }
  return 0;
}

/* the element of f named name, or NULL */
static const hg_force_elem *hg_forces_elem(const hg_forces *f, const char *name) {
  int k = f ? hg_forces_find(f, name) : -1;
  return k < 0 ? NULL : &f->e[k];
}

/* 1 when events or captures of the scene may remove bodies or add, retype or remove joints */
static int hg_scene_edits_topology(const hg_scene *s) {
  if (s->ncapture > 0) return 1;
  for (int k = 0; k < s->nevent; k++)
    for (int a = 0; a < s->event[k].naction; a++) {
      hg_action_type t = s->event[k].action[a].type;
      if (t == HG_ACTION_DETACH || t == HG_ACTION_ATTACH || t == HG_ACTION_UNDOCK ||
          t == HG_ACTION_REMOVE || t == HG_ACTION_ADD)
        return 1;
    }
  return 0;
}

void hg_forces_input_of(const hg_scene *s, hg_force_input *in) {
  in->nforce = s->nforce;
  in->force = s->force;
  in->nmarker = s->nmarker;
  in->marker = s->marker;
  in->bodies = s->builder;
  in->lenient = hg_scene_edits_topology(s);
}

hg_forces *hg_forces_build(const hg_force_input *in, const hg_forces *prev, const hg_model *m,
                           hg_error *err) {
  hg_forces *f = calloc(1, sizeof *f);
  if (!f || !(f->e = calloc((size_t)(in->nforce > 0 ? in->nforce : 1), sizeof *f->e)) ||
      hg_forces_bodies(f, m)) {
    hg_error_set(err, "force elements: out of memory");
    hg_forces_free(f);
    return NULL;
  }
  for (int k = 0; k < in->nforce; k++) {
    const hg_force_spec *sp = &in->force[k];
    hg_force_elem *e = &f->e[k];
    const hg_force_elem *pe = hg_forces_elem(prev, sp->name);
    hg_resolve rs = {in, m, sp, pe != NULL || in->lenient, err};
    f->n = k + 1;
    hg_elem_numbers(sp, e);
    /* a contact's dissipation from its restitution, once (a bisection, ~10 ms) */
    if (sp->type == HG_FORCE_CONTACT && sp->restitution > 0 && !sp->impulsive)
      e->diss = pe && pe->type == HG_FORCE_CONTACT
                    ? pe->diss
                    : hg_contact_dissipation(sp->restitution, sp->impact_speed, sp->exponent);
    if (!(e->name = hg_strdup(sp->name ? sp->name : ""))) {
      hg_error_set(err, "force elements: out of memory");
      hg_forces_free(f);
      return NULL;
    }
    if (hg_elem_check(&rs) || hg_elem_resolve(&rs, pe, e)) {
      hg_forces_free(f);
      return NULL;
    }
    if (pe) e->enabled = pe->enabled;
  }
  /* the collision geometry, once, when an element touches */
  for (int k = 0; k < f->n && !f->coll; k++) {
    if (f->e[k].type != HG_FORCE_CONTACT) continue;
    if (!(f->coll = hg_collision_new(m, err))) {
      hg_forces_free(f);
      return NULL;
    }
  }
  /* the bodies contact elements touch, each once: the step bound follows their motion */
  if (!(f->touching = malloc((size_t)(m->nbody + 1) * sizeof *f->touching))) {
    hg_error_set(err, "force elements: out of memory");
    hg_forces_free(f);
    return NULL;
  }
  for (int i = 1; i < m->nbody; i++) {
    int on = 0;
    for (int k = 0; k < f->n && !on; k++)
      if (f->e[k].type == HG_FORCE_CONTACT)
        on = hg_contact_on_side(&f->e[k], 0, i) || hg_contact_on_side(&f->e[k], 1, i);
    if (on) f->touching[f->ntouching++] = i;
  }
  /* a contact element with a side that has bodies but no collision shape could never act */
  for (int k = 0; k < f->n; k++)
    if (f->e[k].type == HG_FORCE_CONTACT && hg_contact_shapeless(f, &in->force[k], &f->e[k], err)) {
      hg_forces_free(f);
      return NULL;
    }
  return f;
}

/* ---- public interface ---- */

hg_forces *hg_forces_new(const hg_scene *s, const hg_model *m, hg_error *err) {
  hg_force_input in;
  hg_forces_input_of(s, &in);
  return hg_forces_build(&in, NULL, m, err);
}

hg_forces *hg_forces_renew(const hg_forces *prev, const hg_scene *s, const hg_model *m,
                           hg_error *err) {
  hg_force_input in;
  hg_forces_input_of(s, &in);
  return hg_forces_build(&in, prev, m, err);
}

void hg_forces_free(hg_forces *f) {
  if (!f) return;
  for (int k = 0; k < f->n; k++) {
    free(f->e[k].name);
    free(f->e[k].side[0]);
    free(f->e[k].side[1]);
    free(f->e[k].skip);
  }
  free(f->e);
  hg_collision_free(f->coll);
  free(f->mass);
  free(f->com);
  free(f->Ic);
  free(f->motion);
  free(f->touching);
  free(f);
}

int hg_forces_count(const hg_forces *f) { return f->n; }

int hg_forces_find(const hg_forces *f, const char *name) {
  for (int k = 0; name && k < f->n; k++)
    if (strcmp(f->e[k].name, name) == 0) return k;
  return -1;
}

void hg_forces_set_enabled(hg_forces *f, int k, int on) {
  if (k >= 0 && k < f->n) f->e[k].enabled = on != 0;
}

int hg_forces_enabled(const hg_forces *f, int k) {
  return k >= 0 && k < f->n ? f->e[k].enabled : 0;
}

int hg_forces_inert(const hg_forces *f, int k) { return k >= 0 && k < f->n ? f->e[k].inert : 1; }

/* 1 when e's derivatives are analytic (hg_forces_derivatives): a joint spring on a joint whose
 * chart derivative is the identity or J_r^-1 (every type but free) */
static int hg_elem_analytic(const hg_model *m, const hg_force_elem *e) {
  return e->type == HG_FORCE_JOINT_SPRING && !e->inert && m->jnt[e->joint].type != HG_JOINT_FREE;
}

int hg_forces_analytic(const hg_forces *f, const hg_model *m, int k) {
  return k >= 0 && k < f->n && hg_elem_analytic(m, &f->e[k]);
}

static int hg_forces_eval(const hg_forces *f, const hg_model *m, const hg_data *d, double t,
                          const double *q, const double *v, hg_forces_part part, double *fext,
                          double *tau, double *power_nc);

void hg_forces_apply(const hg_forces *f, const hg_model *m, const hg_data *d, double t,
                     const double *q, const double *v, double *fext, double *tau) {
  hg_forces_eval(f, m, d, t, q, v, HG_FORCES_ALL, fext, tau, NULL);
}

int hg_forces_apply_power(const hg_forces *f, const hg_model *m, const hg_data *d, double t,
                          const double *q, const double *v, double *fext, double *tau,
                          double *power_nc) {
  return hg_forces_eval(f, m, d, t, q, v, HG_FORCES_ALL, fext, tau, power_nc);
}

void hg_forces_apply_part(const hg_forces *f, const hg_model *m, const hg_data *d, double t,
                          const double *q, const double *v, hg_forces_part part, double *fext,
                          double *tau) {
  hg_forces_eval(f, m, d, t, q, v, part, fext, tau, NULL);
}

int hg_forces_need_kinematics(const hg_forces *f) {
  for (int k = 0; k < f->n; k++)
    if (f->e[k].enabled && !f->e[k].inert && f->e[k].type != HG_FORCE_JOINT_SPRING) return 1;
  return 0;
}

/* the forces of the elements of part, and (power_nc not NULL) their non-conservative power;
 * returns 1 when an element that adds body wrenches (any but a joint spring) was applied */
static int hg_forces_eval(const hg_forces *f, const hg_model *m, const hg_data *d, double t,
                          const double *q, const double *v, hg_forces_part part, double *fext,
                          double *tau, double *power_nc) {
  double P = 0;
  int wrenches = 0;
  for (int k = 0; k < f->n; k++) {
    const hg_force_elem *e = &f->e[k];
    if (!e->enabled || e->inert) continue;
    if (part != HG_FORCES_ALL && hg_elem_analytic(m, e) != (part == HG_FORCES_ANALYTIC)) continue;
    wrenches |= e->type != HG_FORCE_JOINT_SPRING;
    switch (e->type) {
    case HG_FORCE_CENTRAL_GRAVITY: hg_central_apply(f, e, d, fext); break;
    case HG_FORCE_JOINT_SPRING: P += hg_jspring_apply(m, e, q, v, tau); break;
    case HG_FORCE_SPRING: P += hg_spring_apply(m, d, e, fext); break;
    case HG_FORCE_DRAG:
    case HG_FORCE_PARACHUTE: P += hg_drag_apply(m, d, e, fext); break;
    case HG_FORCE_THRUST:
      hg_thrust_apply(e, t, fext);
      if (power_nc) P += hg_thrust_power(m, d, e, t);
      break;
    case HG_FORCE_CONTACT: {
      /* (one query gives the forces and their power) */
      hg_contact_sum sum;
      hg_contact_eval(f, m, d, e, fext, &sum);
      P += sum.P_nc;
      break;
    }
    }
  }
  if (power_nc) *power_nc = P;
  return wrenches;
}

/* tau = -k xi - c v with xi = q (-) rest: d tau / d delta = -k d xi / d delta, whose columns are
 * the chart rates of unit tangent velocities (hg_joint_chart_rate: the identity, or J_r(xi)^-1 on
 * SO(3)), and d tau / d v = -c */
void hg_forces_derivatives(const hg_forces *f, const hg_model *m, const double *q,
                           double *dtau_dq, double *dtau_dv) {
  size_t nv = (size_t)m->nv;
  for (int k = 0; k < f->n; k++) {
    const hg_force_elem *e = &f->e[k];
    if (!e->enabled || !hg_elem_analytic(m, e)) continue;
    const hg_joint *j = &m->jnt[e->joint];
    int va = m->v_adr[e->joint], n = m->jnt_nv[e->joint];
    double xi[HG_JOINT_MAXNV], u[HG_JOINT_MAXNV], col[HG_JOINT_MAXNV];
    hg_joint_difference(j, e->rest, q + m->q_adr[e->joint], xi);
    for (int c = 0; c < n; c++) {
      for (int r = 0; r < n; r++) u[r] = r == c;
      hg_joint_chart_rate(j, xi, u, col);
      for (int r = 0; r < n; r++) dtau_dq[(size_t)(va + r) * nv + (size_t)(va + c)] -= e->k * col[r];
      dtau_dv[(size_t)(va + c) * nv + (size_t)(va + c)] -= e->c;
    }
  }
}

const char *hg_forces_name(const hg_forces *f, int k) {
  return k >= 0 && k < f->n ? f->e[k].name : NULL;
}

double hg_forces_potential(const hg_forces *f, const hg_model *m, const hg_data *d,
                           const double *q) {
  double U = 0;
  for (int k = 0; k < f->n; k++) {
    const hg_force_elem *e = &f->e[k];
    if (!e->enabled || e->inert) continue;
    if (e->type == HG_FORCE_CENTRAL_GRAVITY) U += hg_central_potential(f, e, d);
    if (e->type == HG_FORCE_JOINT_SPRING) U += hg_jspring_potential(m, e, q);
    if (e->type == HG_FORCE_SPRING) U += hg_spring_potential(m, d, e);
    if (e->type == HG_FORCE_CONTACT) {
      hg_contact_sum sum;
      hg_contact_eval(f, m, d, e, NULL, &sum);
      U += sum.U;
    }
  }
  return U;
}

double hg_forces_power_nc(const hg_forces *f, const hg_model *m, const hg_data *d, double t,
                          const double *q, const double *v) {
  double P = 0;
  for (int k = 0; k < f->n; k++) {
    const hg_force_elem *e = &f->e[k];
    if (!e->enabled || e->inert) continue;
    switch (e->type) {
    case HG_FORCE_CENTRAL_GRAVITY: break;
    case HG_FORCE_JOINT_SPRING: P += hg_jspring_power(m, e, v); break;
    case HG_FORCE_SPRING: P += hg_spring_power(m, d, e); break;
    case HG_FORCE_DRAG:
    case HG_FORCE_PARACHUTE: P += hg_drag_power(m, d, e); break;
    case HG_FORCE_THRUST: P += hg_thrust_power(m, d, e, t); break;
    case HG_FORCE_CONTACT: {
      hg_contact_sum sum;
      hg_contact_eval(f, m, d, e, NULL, &sum);
      P += sum.P_nc;
      break;
    }
    }
  }
  return P;
}

int hg_forces_contact_gap(const hg_forces *f, int k, const hg_model *m, const hg_data *d,
                          double *gap) {
  hg_forces_impact im;
  if (hg_forces_contact_impact(f, k, m, d, &im)) return -1;
  *gap = im.gap - (im.impulsive ? HG_CONTACT_SKIN : 0);
  return 0;
}

int hg_forces_contact_impact(const hg_forces *f, int k, const hg_model *m, const hg_data *d,
                             hg_forces_impact *out) {
  const hg_force_elem *e = k >= 0 && k < f->n ? &f->e[k] : NULL;
  hg_clearance cl;
  int keep[2];
  if (!e || e->type != HG_FORCE_CONTACT || !e->enabled || e->inert ||
      hg_collision_contact_gap(f->coll, m, d->T_world, e->side[0], e->nside[0], e->side[1],
                               e->nside[1], e->skip, e->nskip, keep,
                               hg_contact_keep(m, d, e, keep), &cl))
    return -1;
  out->gap = cl.distance;
  out->body_a = cl.body_a;
  out->body_b = cl.body_b;
  memcpy(out->pa, cl.pa, sizeof out->pa);
  memcpy(out->pb, cl.pb, sizeof out->pb);
  out->impulsive = e->impulsive;
  out->restitution = e->e_imp;
  out->min_speed = e->v_min;
  return 0;
}

/* 1 when the body at place b of side s of contact element e is listed earlier on that side */
static int hg_contact_listed_before(const hg_force_elem *e, int s, int b) {
  for (int r = 0; r < b; r++)
    if (e->side[s][r] == e->side[s][b]) return 1;
  return 0;
}

int hg_forces_contact_held(const hg_forces *f, int k, const hg_model *m, const hg_data *d,
                           int *pairs, int max) {
  const hg_force_elem *e = k >= 0 && k < f->n ? &f->e[k] : NULL;
  int keep[2], nkeep, n = 0;
  if (!e || e->type != HG_FORCE_CONTACT || e->inert) return 0;
  nkeep = hg_contact_keep(m, d, e, keep);
  for (int a = 0; a < e->nside[0]; a++)
    for (int b = 0; b < e->nside[1]; b++) {
      int i = e->side[0][a], j = e->side[1][b], child = m->parent[j] == i ? j : i;
      if (i < 1 || j < 1 || i == j || (m->parent[i] != j && m->parent[j] != i) ||
          !hg_collision_excluded(m, i, j, NULL, 0, keep, nkeep))
        continue;
      /* (a pile lists the pair both ways: once, as i < j; a body listed twice: once) */
      if (i > j && hg_contact_on_side(e, 0, j) && hg_contact_on_side(e, 1, i)) continue;
      if (hg_contact_listed_before(e, 0, a) || hg_contact_listed_before(e, 1, b)) continue;
      if (n < max) pairs[2 * n] = m->parent[child], pairs[2 * n + 1] = child;
      n++;
    }
  return n;
}

/* Body i's world twist W (w, then the velocity of its origin; world axes) and, from tw (the same
 * twist dt seconds ago; dt <= 0: unknown), its rate dW by the difference quotient (0 when
 * unknown). */
static void hg_body_world_motion(const hg_model *m, const hg_data *d, int i, const double tw[6],
                                 double dt, double W[6], double dW[6]) {
  double V[6];
  hg_body_twist(m, d, i, V);
  hg_m3_mulv(d->T_world[i].R, V, W);
  hg_m3_mulv(d->T_world[i].R, V + 3, W + 3);
  /* dW = (W - W_then) / dt */
  for (int k = 0; k < 6; k++) dW[k] = dt > 0 ? (W[k] - tw[k]) / dt : 0;
}

/* The longest step over which bodies i and j (both with shapes) cannot close by more than their
 * gap's lower bound plus half the thinner of their thinnest shapes. Their points lie within
 * r_i, r_j of their origins p_i, p_j, so with origin velocities v, angular velocities w and
 * their rates:
 *   the gap is at least          g = |p_j - p_i| - r_i - r_j
 *   the points close at most at  u = |v_j - v_i| + |w_i| r_i + |w_j| r_j
 *   and speed up at most by      a = |dv_j - dv_i| + (|dw_i| + |w_i|^2) r_i + (|dw_j| + |w_j|^2) r_j
 * (a point's acceleration relative to its origin's being dw x r + w x (w x r)). Only differences
 * of the two bodies' velocities and accelerations enter: a motion they share (an orbit) does not
 * shorten the step (Galilean invariance). */
static double hg_pair_step(const hg_forces *f, const hg_data *d, int i, int j, const double Wi[6],
                           const double dWi[6], const double Wj[6], const double dWj[6]) {
  double ri = hg_collision_reach(f->coll, i), rj = hg_collision_reach(f->coll, j);
  double ti = hg_collision_thinnest(f->coll, i), tj = hg_collision_thinnest(f->coll, j);
  double dp[3], dv[3], da[3];
  for (int k = 0; k < 3; k++) {
    dp[k] = d->T_world[j].p[k] - d->T_world[i].p[k];
    dv[k] = Wj[3 + k] - Wi[3 + k];
    da[k] = dWj[3 + k] - dWi[3 + k];
  }
  double wi = hg_v3_norm(Wi), wj = hg_v3_norm(Wj);
  double u = hg_v3_norm(dv) + wi * ri + wj * rj;
  double a = hg_v3_norm(da) + (hg_v3_norm(dWi) + wi * wi) * ri + (hg_v3_norm(dWj) + wj * wj) * rj;
  /* the distance they may close: the gap they keep for sure, and half the thinner shape (a flat
   * shape, of zero extent, gives no bound of its own) */
  double thin = ti > 0 && tj > 0 ? fmin(ti, tj) : fmax(ti, tj);
  if (!(thin > 0)) return INFINITY;
  double s = fmax(hg_v3_norm(dp) - ri - rj, 0) + 0.5 * thin;
  /* the longest h with u h + a h^2 / 2 <= s */
  if (a > 0) return 2 * s / (u + sqrt(u * u + 2 * a * s));
  return u > 0 ? s / u : INFINITY;
}

double hg_forces_contact_step(const hg_forces *f, const hg_model *m, const hg_data *d, double *tw,
                              double dt) {
  double h = INFINITY;
  /* each body's world twist and its rate, once (a body may be in many pairs and elements) */
  for (int n = 0; n < f->ntouching; n++) {
    int i = f->touching[n];
    hg_body_world_motion(m, d, i, tw + 6 * i, dt, f->motion + 12 * i, f->motion + 12 * i + 6);
  }
  for (int k = 0; k < f->n; k++) {
    const hg_force_elem *e = &f->e[k];
    int keep[2], nkeep;
    if (e->type != HG_FORCE_CONTACT || !e->enabled || e->inert) continue;
    nkeep = hg_contact_keep(m, d, e, keep);
    /* every pair of bodies with shapes, one on each side, that the element tests */
    for (int a = 0; a < e->nside[0]; a++) {
      int i = e->side[0][a];
      if (i < 1 || hg_collision_count(f->coll, i) == 0) continue;
      for (int b = 0; b < e->nside[1]; b++) {
        int j = e->side[1][b];
        if (j < 1 || hg_collision_count(f->coll, j) == 0 ||
            hg_collision_excluded(m, i, j, e->skip, e->nskip, keep, nkeep))
          continue;
        const double *Mi = f->motion + 12 * i, *Mj = f->motion + 12 * j;
        h = fmin(h, hg_pair_step(f, d, i, j, Mi, Mi + 6, Mj, Mj + 6));
      }
    }
  }
  /* the present twists, for the next call's rates */
  for (int n = 0; n < f->ntouching; n++) {
    int i = f->touching[n];
    memcpy(tw + 6 * i, f->motion + 12 * i, 6 * sizeof(double));
  }
  return h;
}

/* ---- views ---- */

void hg_forces_view(const hg_forces *f, const hg_model *m, const hg_data *d, double t,
                    const double *q, const double *v, int k, hg_force_view *o) {
  const hg_force_elem *e = &f->e[k];
  double vel[3] = {0, 0, 0};
  memset(o, 0, sizeof *o);
  o->name = e->name;
  o->type = e->type;
  o->enabled = e->enabled;
  o->inert = e->inert;
  o->body_a = o->body_b = -1;
  if (e->inert) return;
  switch (e->type) {
  case HG_FORCE_CENTRAL_GRAVITY:
    /* the planet centre, and the total attraction on the bodies (world axes) */
    memcpy(o->a, e->centre, sizeof o->a);
    memcpy(o->b, e->centre, sizeof o->b);
    for (int i = 1; i < f->nbody; i++) {
      double w[6], F[3];
      if (f->mass[i] <= 0) continue;
      hg_central_body(f, e, d, i, w);
      hg_m3_mulv(d->T_world[i].R, w + 3, F);
      for (int r = 0; r < 3; r++) o->force[r] += F[r];
    }
    break;
  case HG_FORCE_JOINT_SPRING: {
    /* the joint forces it adds, at the child body's origin */
    int va = m->v_adr[e->joint], nv = m->jnt_nv[e->joint];
    double xi[6], gf[6], tau;
    const double *g = hg_jspring_delta(m, e, q, xi, gf);
    o->body_a = o->body_b = e->joint;
    memcpy(o->a, d->T_world[e->joint].p, sizeof o->a);
    memcpy(o->b, o->a, sizeof o->b);
    for (int r = 0; r < nv; r++) {
      tau = e->k * g[r] + e->c * v[va + r];
      o->magnitude += tau * tau;
    }
    o->magnitude = e->enabled ? sqrt(o->magnitude) : 0;
    return;
  }
  case HG_FORCE_SPRING: {
    hg_spring_state st;
    hg_spring_eval(m, d, e, 1, &st);
    o->body_a = e->body, o->body_b = e->body_b;
    memcpy(o->a, st.pa, sizeof o->a);
    memcpy(o->b, st.pb, sizeof o->b);
    o->length = st.L;
    if (st.active)
      for (int r = 0; r < 3; r++) o->force[r] = -st.s * st.u[r];
    break;
  }
  case HG_FORCE_DRAG:
  case HG_FORCE_PARACHUTE:
    o->body_a = o->body_b = e->body;
    hg_point_state(d, e->body, e->xa, o->a, NULL);
    memcpy(o->b, o->a, sizeof o->b);
    if (e->enabled) hg_drag_force(m, d, e, o->force, vel);
    else hg_point_state(d, e->body, e->xa, o->a, vel);
    o->length = hg_v3_norm(vel);
    break;
  case HG_FORCE_THRUST:
    o->body_a = o->body_b = e->body;
    memcpy(o->a, d->T_world[e->body].p, sizeof o->a);
    memcpy(o->b, o->a, sizeof o->b);
    if (e->enabled && hg_thrust_on(e, t)) hg_m3_mulv(d->T_world[e->body].R, e->force, o->force);
    break;
  case HG_FORCE_CONTACT: {
    /* the deepest point, the total force on side B and how many points touch */
    hg_contact_sum sum;
    if (!e->enabled) break;
    hg_contact_eval(f, m, d, e, NULL, &sum);
    memcpy(o->a, sum.p, sizeof o->a);
    memcpy(o->b, sum.p, sizeof o->b);
    memcpy(o->force, sum.F, sizeof o->force);
    o->ncontact = sum.n;
    o->length = sum.deepest;
    o->body_a = sum.body_a;
    o->body_b = sum.body_b;
    break;
  }
  }
  if (!e->enabled) memset(o->force, 0, sizeof o->force);
  o->magnitude = hg_v3_norm(o->force);
}
