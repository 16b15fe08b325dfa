/* models.c: random trees, the benchmark models and state distances. */
#include "models.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void hg_test_random_vector(hg_rng *r, double *x, int n, double lo, double hi) {
  for (int i = 0; i < n; i++) x[i] = hg_rng_range(r, lo, hi);
}

void hg_test_random_state(hg_rng *r, const hg_model *m, double *q, double *v, double *u,
                          double *fext) {
  hg_model_random(m, r, q);
  hg_test_random_vector(r, v, m->nv, -2, 2);
  hg_test_random_vector(r, u, m->nv, -3, 3);
  for (int i = 1; i < m->nbody; i++) hg_test_random_vector(r, fext + 6 * i, 6, -1, 1);
}

hg_test_state hg_test_state_new(hg_rng *r, const hg_model *m) {
  size_t nv = (size_t)m->nv + 1;
  hg_test_state s = {calloc((size_t)m->nq + 1, sizeof(double)), calloc(nv, sizeof(double)),
                     calloc(nv, sizeof(double)), calloc(6 * (size_t)m->nbody + 1, sizeof(double))};
  if (!s.q || !s.v || !s.u || !s.fext) {
    fprintf(stderr, "hg_test_state_new: out of memory\n");
    abort();
  }
  hg_test_random_state(r, m, s.q, s.v, s.u, s.fext);
  return s;
}

void hg_test_state_free(hg_test_state *s) {
  free(s->q), free(s->v), free(s->u), free(s->fext);
}

double hg_test_state_error(const hg_model *m, const double *q, const double *v, const double *qr,
                           const double *vr) {
  double dq[6 * 64], s = 0;
  if (m->nv > (int)(sizeof dq / sizeof dq[0])) return NAN;
  hg_model_difference(m, qr, q, dq);
  for (int k = 0; k < m->nv; k++) s += dq[k] * dq[k] + (v[k] - vr[k]) * (v[k] - vr[k]);
  return sqrt(s);
}

void hg_test_random_joint(hg_rng *r, hg_joint_type type, hg_joint *j) {
  double axis[3], cr[3], axis2[3];
  const char *why = NULL;
  hg_test_random_vector(r, axis, 3, -1, 1);
  hg_test_random_vector(r, cr, 3, -1, 1);
  hg_v3_cross(axis, cr, axis2);
  if (hg_joint_init(j, type, axis, axis2, hg_rng_range(r, -0.2, 0.2), &why)) {
    fprintf(stderr, "hg_test_random_joint: %s\n", why ? why : "refused");
    abort();
  }
}

void hg_test_random_pose(hg_rng *r, hg_se3 *T) {
  hg_joint j;
  const char *why;
  double q[4];
  hg_joint_init(&j, HG_JOINT_SPHERICAL, NULL, NULL, 0, &why);
  hg_joint_random(&j, r, q);
  hg_quat_to_R(q, T->R);
  hg_test_random_vector(r, T->p, 3, -0.5, 0.5);
}

void hg_test_random_inertia(hg_rng *r, hg_inertia *G) {
  /* principal moments from a random ellipsoid-like mass distribution obey the triangle inequality */
  double m = hg_rng_range(r, 0.5, 2), a = hg_rng_range(r, 0.05, 0.3), b = hg_rng_range(r, 0.05, 0.3),
         c = hg_rng_range(r, 0.05, 0.3);
  double P[3] = {m * (b * b + c * c) / 5, m * (a * a + c * c) / 5, m * (a * a + b * b) / 5};
  hg_se3 T;
  hg_test_random_pose(r, &T);
  double Ic[6] = {0}, com[3];
  /* I_c = R diag(P) R^T */
  for (int k = 0; k < 3; k++) {
    const double *R = T.R;
    Ic[0] += R[0 + k] * R[0 + k] * P[k];
    Ic[1] += R[3 + k] * R[3 + k] * P[k];
    Ic[2] += R[6 + k] * R[6 + k] * P[k];
    Ic[3] += R[0 + k] * R[3 + k] * P[k];
    Ic[4] += R[0 + k] * R[6 + k] * P[k];
    Ic[5] += R[3 + k] * R[6 + k] * P[k];
  }
  hg_test_random_vector(r, com, 3, -0.2, 0.2);
  hg_inertia_from_com(m, com, Ic, G, NULL, 0);
}

void hg_test_add_body(hg_builder *b, const char *name, const char *parent, hg_joint_type type,
                      const double axis[3], const double axis2[3], double pitch, const hg_se3 *off,
                      const hg_inertia *G) {
  hg_body_spec s;
  hg_error err;
  const char *why = NULL;
  memset(&s, 0, sizeof s);
  s.name = name;
  s.parent = parent;
  if (hg_joint_init(&s.joint, type, axis, axis2, pitch, &why)) {
    fprintf(stderr, "fixture joint: %s\n", why);
    abort();
  }
  if (off) s.offset = *off;
  else hg_se3_identity(&s.offset);
  s.inertia = *G;
  if (hg_builder_add_body(b, &s, &err)) {
    fprintf(stderr, "fixture body: %s\n", err.msg);
    abort();
  }
}

hg_model *hg_test_compile(hg_builder *b) {
  hg_error err;
  hg_model *m = hg_builder_compile(b, &err);
  if (!m) {
    fprintf(stderr, "fixture compile: %s\n", err.msg);
    abort();
  }
  hg_builder_free(b);
  return m;
}

static hg_model *random_tree(hg_rng *r, int nbody, int floating, int chain) {
  hg_builder *b = hg_builder_new();
  char name[32], parent[32];
  for (int i = 0; i < nbody; i++) {
    double axis[3], axis2[3], cr[3];
    hg_se3 off;
    hg_inertia G;
    int type;
    if (i == 0 && floating) {
      type = HG_JOINT_FREE;
    } else {
      type = (int)(hg_rng_uniform(r) * HG_JOINT_NTYPES);
      if (type >= HG_JOINT_NTYPES) type = HG_JOINT_NTYPES - 1;
    }
    hg_test_random_vector(r, axis, 3, -1, 1);
    /* a second axis orthogonal-ish to the first for universal joints */
    hg_test_random_vector(r, cr, 3, -1, 1);
    hg_v3_cross(axis, cr, axis2);
    hg_test_random_pose(r, &off);
    hg_test_random_inertia(r, &G);
    /* the parent: the world (first body, and now and then later ones) or any earlier body */
    int p = i == 0 ? -1 : (int)(hg_rng_uniform(r) * (i + 0.3));
    if (p >= i) p = floating ? i - 1 : -1;
    if (chain) p = i - 1;
    snprintf(name, sizeof name, "b%d", i);
    if (p >= 0) snprintf(parent, sizeof parent, "b%d", p);
    hg_test_add_body(b, name, p >= 0 ? parent : "world", (hg_joint_type)type, axis, axis2,
        hg_rng_range(r, -0.2, 0.2), &off, &G);
    /* now and then a post-offset, as a joint reversed by re-rooting has */
    if (hg_rng_uniform(r) < 0.3) {
      hg_body_spec *spec = hg_builder_body(b, name);
      spec->has_post = 1;
      hg_test_random_pose(r, &spec->post);
    }
  }
  return hg_test_compile(b);
}

hg_model *hg_test_random_tree(hg_rng *r, int nbody, int floating) {
  return random_tree(r, nbody, floating, 0);
}

hg_model *hg_test_random_chain(hg_rng *r, int nbody, int floating) {
  return random_tree(r, nbody, floating, 1);
}

hg_model *hg_test_random_revolute(hg_rng *r, int nbody, int chain) {
  return hg_test_random_1dof(r, nbody, chain, 0);
}

/* one random body: axis, joint offset and inertia drawn (in that order, before the caller's
 * draws of parent and type), added as <prefix><i> under <prefix><p> (p < 0: the world) */
typedef struct random_body {
  double axis[3];
  hg_se3 off;
  hg_inertia G;
} random_body;
static random_body draw_body(hg_rng *r) {
  random_body rb;
  hg_test_random_vector(r, rb.axis, 3, -1, 1);
  hg_test_random_pose(r, &rb.off);
  hg_test_random_inertia(r, &rb.G);
  return rb;
}
static void add_random_body(hg_builder *b, const random_body *rb, char prefix, int i, int p,
                            hg_joint_type type) {
  char name[32], parent[32] = "world";
  snprintf(name, sizeof name, "%c%d", prefix, i);
  if (p >= 0) snprintf(parent, sizeof parent, "%c%d", prefix, p);
  hg_test_add_body(b, name, parent, type, rb->axis, NULL, 0, &rb->off, &rb->G);
}

hg_model *hg_test_random_1dof(hg_rng *r, int nbody, int chain, double prismatic) {
  hg_builder *b = hg_builder_new();
  for (int i = 0; i < nbody; i++) {
    random_body rb = draw_body(r);
    /* the parent: the previous body in a chain; in a forest the world now and then */
    int p = chain ? i - 1 : (i == 0 ? -1 : (int)(hg_rng_uniform(r) * (i + 0.3)));
    if (p >= i) p = -1;
    /* (no draw when every joint is revolute: hg_test_random_revolute's models stay as they were) */
    hg_joint_type type = prismatic > 0 && hg_rng_uniform(r) < prismatic ? HG_JOINT_PRISMATIC
                                                                        : HG_JOINT_REVOLUTE;
    add_random_body(b, &rb, 'r', i, p, type);
  }
  return hg_test_compile(b);
}

hg_model *hg_test_random_floating(hg_rng *r, int nbody, int ntrees, double prismatic) {
  hg_builder *b = hg_builder_new();
  for (int i = 0; i < nbody; i++) {
    random_body rb = draw_body(r);
    /* the first ntrees bodies float; each other hangs on any earlier body */
    int p = i < ntrees ? -1 : (int)(hg_rng_uniform(r) * i);
    if (p >= i) p = i - 1;
    hg_joint_type type = p < 0 ? HG_JOINT_FREE
                       : hg_rng_uniform(r) < prismatic ? HG_JOINT_PRISMATIC : HG_JOINT_REVOLUTE;
    add_random_body(b, &rb, 'f', i, p, type);
  }
  return hg_test_compile(b);
}

/* a slender link of mass m and length l along +x from its frame origin */
static void link_inertia(double m, double l, hg_inertia *G) {
  double c[3] = {0.5 * l, 0, 0}, r = 0.04;
  double Ic[6] = {0.5 * m * r * r, m * (3 * r * r + l * l) / 12, m * (3 * r * r + l * l) / 12, 0, 0, 0};
  hg_inertia_from_com(m, c, Ic, G, NULL, 0);
}

static hg_se3 translation(double x, double y, double z) {
  hg_se3 T;
  hg_se3_identity(&T);
  T.p[0] = x; T.p[1] = y; T.p[2] = z;
  return T;
}

static const double X[3] = {1, 0, 0}, Y[3] = {0, 1, 0}, Z[3] = {0, 0, 1};

hg_model *hg_test_chain(int n) {
  hg_builder *b = hg_builder_new();
  char name[32], parent[32];
  hg_inertia G;
  link_inertia(1.0, 0.3, &G);
  for (int i = 0; i < n; i++) {
    hg_se3 off = translation(i == 0 ? 0 : 0.3, 0, 0);
    snprintf(name, sizeof name, "link%d", i + 1);
    snprintf(parent, sizeof parent, "link%d", i);
    hg_test_add_body(b, name, i == 0 ? "world" : parent, HG_JOINT_REVOLUTE, i % 2 ? Y : Z, NULL, 0, &off, &G);
  }
  return hg_test_compile(b);
}

hg_model *hg_test_arm7(void) {
  /* a 7-DoF arm with alternating z / y axes and tapering links, like a lightweight manipulator */
  static const double len[7] = {0.33, 0.0, 0.32, 0.0, 0.38, 0.0, 0.1};
  static const double mass[7] = {4.0, 4.0, 3.0, 2.7, 1.7, 1.8, 0.5};
  hg_builder *b = hg_builder_new();
  char name[32], parent[32];
  double up = 0;
  for (int i = 0; i < 7; i++) {
    hg_inertia G;
    double c[3] = {0.01, 0.02, 0.5 * (len[i] > 0 ? len[i] : 0.08)}, r = 0.06;
    double l = len[i] > 0 ? len[i] : 0.08;
    double Ic[6] = {mass[i] * (3 * r * r + l * l) / 12, mass[i] * (3 * r * r + l * l) / 12,
                    0.5 * mass[i] * r * r, 0.001, 0, 0.0005};
    hg_inertia_from_com(mass[i], c, Ic, &G, NULL, 0);
    hg_se3 off = translation(0, 0, up);
    up = len[i];
    snprintf(name, sizeof name, "arm%d", i + 1);
    snprintf(parent, sizeof parent, "arm%d", i);
    hg_test_add_body(b, name, i == 0 ? "world" : parent, HG_JOINT_REVOLUTE, i % 2 ? Y : Z, NULL, 0, &off, &G);
  }
  return hg_test_compile(b);
}

hg_model *hg_test_binary_tree(int depth) {
  hg_builder *b = hg_builder_new();
  char name[32], parent[32];
  hg_inertia G;
  link_inertia(1.0, 0.2, &G);
  int n = (1 << depth) - 1;
  for (int i = 0; i < n; i++) {
    /* body i's children are 2i+1 and 2i+2; they branch left and right */
    hg_se3 off = translation(i == 0 ? 0 : 0.2, i == 0 ? 0 : (i % 2 ? 0.05 : -0.05), 0);
    snprintf(name, sizeof name, "node%d", i);
    snprintf(parent, sizeof parent, "node%d", (i - 1) / 2);
    hg_test_add_body(b, name, i == 0 ? "world" : parent, HG_JOINT_REVOLUTE, i % 3 == 0 ? Z : (i % 3 == 1 ? Y : X),
        NULL, 0, &off, &G);
  }
  return hg_test_compile(b);
}

hg_model *hg_test_humanoid(void) {
  /* pelvis on a free joint; legs 2 x 6, arms 2 x 6, neck 2: 6 + 26 = 32 DoF */
  hg_builder *b = hg_builder_new();
  hg_inertia G, torso;
  double c0[3] = {0, 0, 0.1}, I0[6] = {0.6, 0.5, 0.3, 0, 0, 0};
  hg_inertia_from_com(10.0, c0, I0, &torso, NULL, 0);
  hg_se3 off = translation(0, 0, 1.0);
  hg_test_add_body(b, "pelvis", "world", HG_JOINT_FREE, NULL, NULL, 0, &off, &torso);
  static const double *leg_axes[6] = {Z, X, Y, Y, Y, X};
  static const double *arm_axes[6] = {Y, X, Z, Y, Z, Y};
  char name[32], parent[32];
  for (int side = 0; side < 2; side++) {
    double s = side ? -1 : 1;
    for (int k = 0; k < 6; k++) {
      hg_se3 o = k == 0 ? translation(0, 0.1 * s, -0.1) : translation(0, 0, k == 3 || k == 4 ? -0.4 : -0.02);
      link_inertia(k < 3 ? 1.5 : 1.0, 0.1, &G);
      snprintf(name, sizeof name, "%sleg%d", side ? "r" : "l", k);
      if (k == 0) snprintf(parent, sizeof parent, "pelvis");
      else snprintf(parent, sizeof parent, "%sleg%d", side ? "r" : "l", k - 1);
      hg_test_add_body(b, name, parent, HG_JOINT_REVOLUTE, leg_axes[k], NULL, 0, &o, &G);
    }
    for (int k = 0; k < 6; k++) {
      hg_se3 o = k == 0 ? translation(0, 0.2 * s, 0.45) : translation(0, 0, k == 3 || k == 5 ? -0.28 : -0.02);
      link_inertia(k < 3 ? 1.0 : 0.6, 0.1, &G);
      snprintf(name, sizeof name, "%sarm%d", side ? "r" : "l", k);
      if (k == 0) snprintf(parent, sizeof parent, "pelvis");
      else snprintf(parent, sizeof parent, "%sarm%d", side ? "r" : "l", k - 1);
      hg_test_add_body(b, name, parent, HG_JOINT_REVOLUTE, arm_axes[k], NULL, 0, &o, &G);
    }
  }
  hg_se3 o = translation(0, 0, 0.55);
  link_inertia(1.0, 0.1, &G);
  hg_test_add_body(b, "neck", "pelvis", HG_JOINT_REVOLUTE, Z, NULL, 0, &o, &G);
  o = translation(0, 0, 0.05);
  link_inertia(3.0, 0.2, &G);
  hg_test_add_body(b, "head", "neck", HG_JOINT_REVOLUTE, Y, NULL, 0, &o, &G);
  return hg_test_compile(b);
}
