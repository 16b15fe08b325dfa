/* test_urdf.c: the URDF reader on hand-written models in tests/data, checked against values
 * computed by hand, and every error path on one malformed file each (tests/data/urdf_bad/). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>
#include <unistd.h>

#include "files.h"
#include "hinge.h"
#include "mimic.h"
#include "merge.h"
#include "urdf.h"

#define PI 3.14159265358979323846
#define TOL 1e-12

/* ---- helpers ---- */

static hg_model *load(const char *path, int floating) {
  hg_error err;
  hg_model *m = hg_urdf_load(path, floating, NULL, &err);
  if (!m) fail_msg("%s", err.msg);
  return m;
}

static int body(const hg_model *m, const char *name) {
  int i = hg_model_body(m, name);
  if (i < 0) fail_msg("no body '%s'", name);
  return i;
}

static void assert_near(double a, double b, double tol) {
  if (!(fabs(a - b) <= tol)) fail_msg("%.17g != %.17g (tolerance %g)", a, b, tol);
}

static void assert_vec_near(const double *a, const double *b, int n, double tol) {
  for (int k = 0; k < n; k++) assert_near(a[k], b[k], tol);
}

/* URDF rpy written out by hand: R = Rz(y) Ry(p) Rx(r) expanded */
static void rpy_by_hand(double r, double p, double y, double R[9]) {
  double cr = cos(r), sr = sin(r), cp = cos(p), sp = sin(p), cy = cos(y), sy = sin(y);
  R[0] = cy * cp; R[1] = cy * sp * sr - sy * cr; R[2] = cy * sp * cr + sy * sr;
  R[3] = sy * cp; R[4] = sy * sp * sr + cy * cr; R[5] = sy * sp * cr - cy * sr;
  R[6] = -sp;     R[7] = cp * sr;                R[8] = cp * cr;
}

/* ---- inertia ---- */

/* base: principal moments (0.04, 0.02, 0.03) turned by yaw pi/4 about z give I_c with
 * xx = yy = (0.04 + 0.02)/2 = 0.03, xy = (0.04 - 0.02)/2 = 0.01, zz = 0.03. With m = 2 and
 * c = (0.1, 0.2, -0.5), |c|^2 = 0.3, I_o = I_c + m (|c|^2 1 - c c^T):
 *   xx = 0.03 + 2 (0.3 - 0.01) = 0.61,  yy = 0.03 + 2 (0.3 - 0.04) = 0.55,
 *   zz = 0.03 + 2 (0.3 - 0.25) = 0.13,  xy = 0.01 - 2 (0.02) = -0.03,
 *   xz = 0 - 2 (-0.05) = 0.1,           yz = 0 - 2 (-0.1) = 0.2,    h = m c = (0.2, 0.4, -1). */
static void inertia_offset_and_yaw(void **state) {
  hg_model *m = load("data/inertial.urdf", 0);
  const hg_inertia *G = &m->inertia[body(m, "base")];
  double h[3] = {0.2, 0.4, -1}, I[6] = {0.61, 0.55, 0.13, -0.03, 0.1, 0.2};
  assert_near(G->m, 2, TOL);
  assert_vec_near(G->h, h, 3, TOL);
  assert_vec_near(G->I, I, 6, TOL);
  hg_model_free(m);
}

/* roll pi/2 maps y to z and z to -y, so diag(a, b, c) becomes diag(a, c, b); products of inertia
 * are the matrix entries (ixy = I_xy); c = (0, 0, 0.1), m = 3 adds 3 * 0.01 to xx and yy. */
static void inertia_roll_and_products(void **state) {
  hg_model *m = load("data/inertial.urdf", 0);
  const hg_inertia *R = &m->inertia[body(m, "roll")], *P = &m->inertia[body(m, "products")];
  double Ir[6] = {0.01, 0.025, 0.02, 0, 0, 0};
  double Ip[6] = {0.33, 0.43, 0.5, 0.01, -0.02, 0.03}, hp[3] = {0, 0, 0.3};
  assert_near(R->m, 1, TOL);
  assert_vec_near(R->I, Ir, 6, TOL);
  assert_near(P->m, 3, TOL);
  assert_vec_near(P->h, hp, 3, TOL);
  assert_vec_near(P->I, Ip, 6, TOL);
  hg_model_free(m);
}

/* a general rpy: I_c = R diag(0.2, 0.3, 0.4) R^T with R written out by hand */
static void inertia_general_rpy(void **state) {
  hg_model *m = load("data/inertial.urdf", 0);
  const hg_inertia *G = &m->inertia[body(m, "general")];
  double R[9], Ic[9], P[3] = {0.2, 0.3, 0.4}, c[3] = {0.05, -0.1, 0.2}, mass = 1.5;
  double c_got[3], Ic_got[6];
  rpy_by_hand(0.3, -0.4, 1.1, R);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      Ic[3 * i + j] = R[3 * i] * P[0] * R[3 * j] + R[3 * i + 1] * P[1] * R[3 * j + 1] +
                      R[3 * i + 2] * P[2] * R[3 * j + 2];
  double Ic6[6] = {Ic[0], Ic[4], Ic[8], Ic[1], Ic[2], Ic[5]};
  double cc = c[0] * c[0] + c[1] * c[1] + c[2] * c[2];
  double Io[6] = {Ic6[0] + mass * (cc - c[0] * c[0]), Ic6[1] + mass * (cc - c[1] * c[1]),
                  Ic6[2] + mass * (cc - c[2] * c[2]), Ic6[3] - mass * c[0] * c[1],
                  Ic6[4] - mass * c[0] * c[2],        Ic6[5] - mass * c[1] * c[2]};
  assert_near(G->m, mass, TOL);
  assert_vec_near(G->I, Io, 6, TOL);
  hg_inertia_com(G, c_got, Ic_got);
  assert_vec_near(c_got, c, 3, TOL);
  assert_vec_near(Ic_got, Ic6, 6, TOL);
  hg_model_free(m);
}

/* ---- the 2-link arm ---- */

/* Planar 2R arm (arm2.urdf), joints about z, so gravity plays no part in M:
 *   M11 = I1 + m1 c1^2 + I2 + m2 (l1^2 + c2^2 + 2 l1 c2 cos q2)
 *   M12 = M21 = I2 + m2 (c2^2 + l1 c2 cos q2)
 *   M22 = I2 + m2 c2^2
 * with m1 = 1, l1 = 1, c1 = 0.5, I1 = 1/12, m2 = 2, c2 = 0.4, I2 = 0.05. At q = (0, 0):
 * M = [[4.30333.., 1.17], [1.17, 0.37]]; at q = (0, pi/2): M = [[2.70333.., 0.37], [0.37, 0.37]]. */
static void arm_mass_by_hand(double q2, double M[4]) {
  double m1 = 1, l1 = 1, c1 = 0.5, I1 = 1.0 / 12, m2 = 2, c2 = 0.4, I2 = 0.05;
  M[0] = I1 + m1 * c1 * c1 + I2 + m2 * (l1 * l1 + c2 * c2 + 2 * l1 * c2 * cos(q2));
  M[1] = M[2] = I2 + m2 * (c2 * c2 + l1 * c2 * cos(q2));
  M[3] = I2 + m2 * c2 * c2;
}

static void arm_mass_matrix(void **state) {
  hg_model *m = load("data/arm2.urdf", 0);
  hg_data *d = hg_data_new(m);
  double qs[4][2] = {{0, 0}, {0, PI / 2}, {0.4, 0.7}, {-1.2, 2.5}}, M[4], E[4];
  double at00[4] = {1.0 / 12 + 0.25 + 0.05 + 3.92, 1.17, 1.17, 0.37};
  double at0pi2[4] = {1.0 / 12 + 0.25 + 0.05 + 2.32, 0.37, 0.37, 0.37};
  assert_int_equal(m->nq, 2);
  assert_int_equal(m->nv, 2);
  for (int k = 0; k < 4; k++) {
    hg_crba(m, d, qs[k], M);
    arm_mass_by_hand(qs[k][1], E);
    assert_vec_near(M, E, 4, TOL);
  }
  hg_crba(m, d, qs[0], M);
  assert_vec_near(M, at00, 4, TOL);
  hg_crba(m, d, qs[1], M);
  assert_vec_near(M, at0pi2, 4, TOL);
  hg_data_free(d);
  hg_model_free(m);
}

/* joints, limits and the fixed tool: tool at (cos q1 + 0.8 cos(q1 + q2), sin q1 + 0.8 sin(q1 + q2), 0) */
static void arm_structure(void **state) {
  hg_model *m = load("data/arm2.urdf", 0);
  hg_data *d = hg_data_new(m);
  int sh = hg_model_joint(m, "shoulder"), el = hg_model_joint(m, "elbow");
  int root = hg_model_joint(m, "base_root"), tool = body(m, "tool");
  double q[2] = {0.3, -0.9}, p[3] = {cos(0.3) + 0.8 * cos(-0.6), sin(0.3) + 0.8 * sin(-0.6), 0};
  assert_true(sh > 0 && el > 0 && root > 0);
  assert_int_equal(m->jnt[root].type, HG_JOINT_FIXED);
  assert_int_equal(m->parent[root], 0);
  assert_int_equal(m->jnt[sh].type, HG_JOINT_REVOLUTE);
  assert_int_equal(m->jnt[el].type, HG_JOINT_REVOLUTE); /* continuous */
  assert_int_equal(m->jnt[hg_model_joint(m, "wrist")].type, HG_JOINT_FIXED);
  assert_int_equal(m->parent[tool], body(m, "link2"));
  /* limits kept; a continuous joint has none */
  assert_true(m->limits[sh].has_position && m->limits[sh].has_effort && m->limits[sh].has_velocity);
  assert_near(m->limits[sh].lower, -1, 0);
  assert_near(m->limits[sh].upper, 2, 0);
  assert_near(m->limits[sh].effort, 10, 0);
  assert_near(m->limits[sh].velocity, 3, 0);
  assert_false(m->limits[el].has_position || m->limits[el].has_effort || m->limits[el].has_velocity);
  hg_kinematics(m, d, q, NULL);
  assert_vec_near(d->T_world[tool].p, p, 3, TOL);
  hg_data_free(d);
  hg_model_free(m);
}

/* ---- poses ---- */

/* a = Rz(pi/2) at (1, 0, 0); b = a * (Rx(pi/2), (0, 2, 0)) * Rz(q): at p = (1,0,0) + Rz(pi/2)(0,2,0)
 * = (-1, 0, 0) with Rz(pi/2) Rx(pi/2) = [[0,0,1],[1,0,0],[0,1,0]], times Rz(q) gives rows
 * (0, 0, 1), (cos q, -sin q, 0), (sin q, cos q, 0); c = b * (rpy(0.3, -0.4, 1.1), (0.1, 0.2, 0.3)). */
static void joint_offsets_rpy(void **state) {
  hg_model *m = load("data/poses.urdf", 0);
  hg_data *d = hg_data_new(m);
  double q = 0.3, c = cos(q), s = sin(q);
  double Rb[9] = {0, 0, 1, c, -s, 0, s, c, 0}, pb[3] = {-1, 0, 0};
  double R3[9], p3[3] = {0.1, 0.2, 0.3}, Rc[9], pc[3];
  const hg_se3 *Tb, *Tc;
  assert_int_equal(m->nv, 1);
  hg_kinematics(m, d, &q, NULL);
  Tb = &d->T_world[body(m, "b")];
  Tc = &d->T_world[body(m, "c")];
  assert_vec_near(Tb->R, Rb, 9, TOL);
  assert_vec_near(Tb->p, pb, 3, TOL);
  rpy_by_hand(0.3, -0.4, 1.1, R3);
  for (int i = 0; i < 3; i++) {
    pc[i] = pb[i];
    for (int k = 0; k < 3; k++) pc[i] += Rb[3 * i + k] * p3[k];
    for (int j = 0; j < 3; j++) {
      Rc[3 * i + j] = 0;
      for (int k = 0; k < 3; k++) Rc[3 * i + j] += Rb[3 * i + k] * R3[3 * k + j];
    }
  }
  assert_vec_near(Tc->R, Rc, 9, TOL);
  assert_vec_near(Tc->p, pc, 3, TOL);
  hg_data_free(d);
  hg_model_free(m);
}

/* ---- the pendulum ---- */

/* m = 2, l_c = 0.5, I_o = 0.1 + 2 * 0.25 = 0.6 about y; the joint 1 m above the world origin */
static void pendulum(void **state) {
  hg_model *m = load("data/pendulum.urdf", 0);
  hg_data *d = hg_data_new(m);
  int j = hg_model_joint(m, "hinge");
  double q = PI / 2, v = 0, tau = 0, qdd, M, axis[3] = {0, 1, 0}, p[3] = {0, 0, 1};
  assert_int_equal(m->nq, 1);
  assert_vec_near(m->jnt[j].axis, axis, 3, 0);
  assert_vec_near(m->jnt_offset[j].p, p, 3, 0);
  hg_crba(m, d, &q, &M);
  assert_near(M, 0.6, TOL);
  assert_int_equal(hg_aba(m, d, &q, &v, &tau, NULL, &qdd), 0);
  assert_near(qdd, -9.81 * 2 * 0.5 / 0.6, TOL);
  hg_data_free(d);
  hg_model_free(m);
}

/* ---- joint types ---- */

static void planar_and_floating(void **state) {
  hg_model *m = load("data/planar.urdf", 0);
  double z[3] = {0, 0, 1};
  assert_int_equal(m->nq, 3);
  assert_int_equal(m->nv, 3);
  assert_int_equal(m->jnt[hg_model_joint(m, "slide")].type, HG_JOINT_PLANAR);
  assert_vec_near(m->jnt[hg_model_joint(m, "slide")].axis, z, 3, 0);
  hg_model_free(m);

  m = load("data/floating.urdf", 0);
  assert_int_equal(m->nq, 7);
  assert_int_equal(m->nv, 6);
  assert_int_equal(m->jnt[hg_model_joint(m, "float")].type, HG_JOINT_FREE);
  hg_model_free(m);

  /* floating != 0: a free joint under the root link, named <root>_root */
  m = load("data/pendulum.urdf", 1);
  assert_int_equal(m->nq, 8);
  assert_int_equal(m->nv, 7);
  assert_int_equal(m->jnt[hg_model_joint(m, "base_root")].type, HG_JOINT_FREE);
  hg_model_free(m);
}

/* ---- geometry and notes ---- */

static void check_geom(const hg_geom *g, hg_geom_type type, int collision, double s0, double s1,
                       double s2) {
  double size[3] = {s0, s1, s2};
  assert_int_equal(g->type, type);
  assert_int_equal(g->collision, collision);
  assert_vec_near(g->size, size, 3, 0);
}

static void geometry(void **state) {
  hg_model *m = load("data/geoms.urdf", 0);
  const hg_geom *g = m->geom;
  double Rz[9] = {0, -1, 0, 1, 0, 0, 0, 0, 1}, p[3] = {1, 2, 3};
  int b = body(m, "body");
  assert_int_equal(m->ngeom, 8);
  for (int k = 0; k < 8; k++) assert_int_equal(g[k].body, b);
  /* box: full extents, pose, inline material */
  check_geom(&g[0], HG_GEOM_BOX, 0, 0.1, 0.2, 0.3);
  assert_vec_near(g[0].pose.R, Rz, 9, TOL);
  assert_vec_near(g[0].pose.p, p, 3, 0);
  assert_true(g[0].rgba[0] == 1 && g[0].rgba[1] == 0 && g[0].rgba[2] == 0 && g[0].rgba[3] == 0.5f);
  assert_null(g[0].mesh);
  /* cylinder with a named top-level material */
  check_geom(&g[1], HG_GEOM_CYLINDER, 0, 0.05, 0.4, 0);
  assert_true(g[1].rgba[0] == 0 && g[1].rgba[1] == 0 && g[1].rgba[2] == 1 && g[1].rgba[3] == 1);
  /* collision sphere, default grey */
  check_geom(&g[2], HG_GEOM_SPHERE, 1, 0.25, 0, 0);
  assert_true(g[2].rgba[0] == 0.7f && g[2].rgba[3] == 1);
  /* meshes: relative to the URDF's folder, package:// minus the scheme, absolute, file:// */
  check_geom(&g[3], HG_GEOM_MESH, 0, 2, 3, 4);
  assert_string_equal(g[3].mesh, "data/meshes/part.stl");
  check_geom(&g[4], HG_GEOM_MESH, 1, 1, 1, 1);
  assert_string_equal(g[4].mesh, "robot_description/meshes/part.dae");
  assert_string_equal(g[5].mesh, "/abs/path/part.obj");
  assert_string_equal(g[6].mesh, "/abs/file.stl");
  /* a capsule; an unknown material name gives grey */
  check_geom(&g[7], HG_GEOM_CAPSULE, 0, 0.1, 0.5, 0);
  assert_true(g[7].rgba[0] == 0.7f && g[7].rgba[2] == 0.7f);
  /* continuous is revolute, about its axis */
  {
    int j = hg_model_joint(m, "axle");
    double y[3] = {0, 1, 0};
    assert_int_equal(m->jnt[j].type, HG_JOINT_REVOLUTE);
    assert_vec_near(m->jnt[j].axis, y, 3, 0);
  }
  hg_model_free(m);
}

/* skipped elements are noted with file:line on the notes stream */
static void skipping_notes(void **state) {
  char *text = NULL;
  size_t len = 0;
  FILE *notes = open_memstream(&text, &len);
  hg_error err;
  hg_model *m;
  static const char *const expected[] = {
      "data/geoms.urdf:40: note: unknown material 'chrome': using grey\n",
      "data/geoms.urdf:30: note: mesh 'package://robot_description/meshes/part.dae': package not "
      "found",
      "data/geoms.urdf:27: note: mesh file 'data/meshes/part.stl' (from 'meshes/part.stl') cannot "
      "be read",
      "data/geoms.urdf: note: skipped 1 <sensor>, 1 <safety_controller>, 1 <transmission>, 1 "
      "<gazebo> elements (--verbose lists them)\n",
      "data/geoms.urdf:54: note: 1 joint has <dynamics damping/friction> that hinge does not "
      "apply",
  };
  assert_non_null(notes);
  m = hg_urdf_load("data/geoms.urdf", 0, notes, &err);
  fclose(notes);
  assert_non_null(m);
  for (size_t k = 0; k < sizeof expected / sizeof expected[0]; k++)
    if (!strstr(text, expected[k])) fail_msg("missing note '%s' in:\n%s", expected[k], text);
  free(text);
  hg_model_free(m);
}

/* ---- placing robots in a builder ---- */

/* two robots with prefixes, the second under a body of the first at a pose */
static void prefix_parent_pose(void **state) {
  hg_builder *b = hg_builder_new();
  hg_error err;
  hg_se3 pose;
  hg_model *m;
  double p[3] = {0, 1, 0};
  hg_se3_identity(&pose);
  pose.p[1] = 1;
  assert_int_equal(hg_urdf_add(b, "data/pendulum.urdf", NULL, &pose, "left_", 0, NULL, &err), 0);
  assert_int_equal(hg_urdf_add(b, "data/arm2.urdf", "left_arm", NULL, "right_", 0, NULL, &err), 0);
  /* the same names again collide, reported at the link */
  assert_int_equal(hg_urdf_add(b, "data/pendulum.urdf", NULL, NULL, "left_", 0, NULL, &err), -1);
  assert_non_null(strstr(err.msg, "data/pendulum.urdf:7: "));
  assert_non_null(strstr(err.msg, "duplicate body name 'left_base'"));
  m = hg_builder_compile(b, &err);
  if (!m) fail_msg("%s", err.msg);
  assert_int_equal(m->nv, 3);
  assert_true(hg_model_joint(m, "left_hinge") > 0 && hg_model_joint(m, "right_elbow") > 0);
  assert_int_equal(m->parent[body(m, "right_base")], body(m, "left_arm"));
  assert_vec_near(m->jnt_offset[hg_model_joint(m, "left_base_root")].p, p, 3, 0);
  assert_int_equal(m->jnt[hg_model_joint(m, "right_base_root")].type, HG_JOINT_FIXED);
  hg_model_free(m);
  hg_builder_free(b);
}

/* a root link named "world" is the parent body: no body of its own, the pose moves its joints */
static void world_root_link(void **state) {
  hg_builder *b = hg_builder_new();
  hg_error err;
  hg_se3 pose;
  hg_model *m;
  double p[3] = {1, 0, 2};
  char *text = NULL;
  size_t len = 0;
  FILE *notes = open_memstream(&text, &len);
  hg_se3_identity(&pose);
  pose.p[0] = 1;
  assert_int_equal(hg_urdf_add(b, "data/world_root.urdf", NULL, &pose, NULL, 1, notes, &err), 0);
  fclose(notes);
  assert_non_null(strstr(text, "data/world_root.urdf:5: note: skipping <visual> of the root link 'world'"));
  assert_non_null(strstr(text, "not floating"));
  free(text);
  m = hg_builder_compile(b, &err);
  if (!m) fail_msg("%s", err.msg);
  assert_int_equal(m->nbody, 2);
  assert_int_equal(m->ngeom, 0);
  assert_int_equal(m->parent[hg_model_joint(m, "hinge")], 0);
  assert_vec_near(m->jnt_offset[hg_model_joint(m, "hinge")].p, p, 3, 0);
  hg_model_free(m);
  hg_builder_free(b);
}

/* ---- errors ---- */

/* one malformed file per error path: the message is "file:line: ..." with the expected text */
static const struct {
  const char *file;
  int line;
  const char *text;
} bad_files[] = {
    {"malformed.urdf", 5, "Opening and ending tag mismatch"},
    {"not_robot.urdf", 3, "expected a <robot> root element, found <model>"},
    {"no_links.urdf", 3, "<robot> has no <link>"},
    {"link_no_name.urdf", 5, "<link> needs a non-empty name attribute"},
    {"duplicate_link.urdf", 6, "duplicate link name 'a' (the first is on line 4)"},
    {"material_no_name.urdf", 4, "a top-level <material> needs a non-empty name attribute"},
    {"joint_no_name.urdf", 6, "<joint> needs a non-empty name attribute"},
    {"duplicate_joint.urdf", 11, "duplicate joint name 'j' (the first is on line 7)"},
    {"joint_no_type.urdf", 6, "joint 'j' needs a type attribute"},
    {"unknown_type.urdf", 6, "joint 'j' has unknown type 'ball'"},
    {"joint_no_parent.urdf", 6, "joint 'j' needs a <parent link=\"...\"/>"},
    {"joint_no_child.urdf", 6, "joint 'j' needs a <child link=\"...\"/>"},
    {"parent_no_link.urdf", 7, "<parent> needs a non-empty link attribute"},
    {"unknown_link.urdf", 8, "joint 'j' names an unknown child link 'ghost'"},
    {"self_joint.urdf", 5, "joint 'j' connects link 'a' to itself"},
    {"two_parents.urdf", 15, "link 'c' has two parent joints: 'ac' (line 11) and 'bc'"},
    {"no_root.urdf", 3, "no root link"},
    {"two_roots.urdf", 6, "several root links ('a' and 'c'"},
    {"cycle.urdf", 7, "joint 'ab' is part of a cycle: link 'b' never reaches the root link 'r'"},
    {"bad_number.urdf", 6, "value=\"1.0abc\" of <mass> is not a finite number"},
    {"not_finite.urdf", 7, "ixx=\"inf\" of <inertia> is not a finite number"},
    {"bad_vector.urdf", 9, "xyz=\"1 2\" of <origin> is not 3 finite numbers"},
    {"bad_rgba.urdf", 7, "rgba=\"1 0 0\" of <color> is not 4 finite numbers"},
    {"negative_mass.urdf", 6, "mass must be finite and >= 0"},
    {"triangle.urdf", 7, "triangle inequality"},
    {"not_psd.urdf", 7, "not positive semi-definite"},
    {"no_mass.urdf", 5, "<inertial> needs a <mass"},
    {"mass_no_value.urdf", 6, "<mass> needs a value attribute"},
    {"no_inertia.urdf", 5, "<inertial> needs an <inertia"},
    {"inertia_missing.urdf", 7, "<inertia> needs a iyz attribute"},
    {"two_inertials.urdf", 9, "duplicate <inertial> (the first is on line 5)"},
    {"zero_axis.urdf", 9, "joint 'j': axis is zero"},
    {"bad_limit.urdf", 9, "<limit> lower 1 is above upper -1"},
    {"duplicate_origin.urdf", 10, "duplicate <origin> (the first is on line 7)"},
    {"no_geometry.urdf", 5, "<visual> needs a <geometry>"},
    {"empty_geometry.urdf", 6, "<geometry> needs a box, cylinder, sphere or mesh"},
    {"two_shapes.urdf", 8, "<geometry> holds more than one shape"},
    {"unknown_shape.urdf", 7, "unsupported shape <cone>"},
    {"box_no_size.urdf", 6, "<box> needs a size attribute"},
    {"box_bad_size.urdf", 6, "size of <box> must be positive"},
    {"cylinder_no_length.urdf", 6, "<cylinder> needs a length attribute"},
    {"sphere_bad_radius.urdf", 6, "radius of <sphere> must be positive"},
    {"mesh_no_filename.urdf", 6, "<mesh> needs a non-empty filename attribute"},
};

static void error_paths(void **state) {
  for (size_t k = 0; k < sizeof bad_files / sizeof bad_files[0]; k++) {
    char path[256], where[300];
    hg_error err;
    hg_builder *b = hg_builder_new();
    snprintf(path, sizeof path, "data/urdf_bad/%s", bad_files[k].file);
    snprintf(where, sizeof where, "%s:%d: ", path, bad_files[k].line);
    strcpy(err.msg, "(no message)");
    assert_null(hg_urdf_load(path, 0, NULL, &err));
    if (strncmp(err.msg, where, strlen(where)) != 0 || !strstr(err.msg, bad_files[k].text))
      fail_msg("%s: expected '%s...%s', got '%s'", bad_files[k].file, where, bad_files[k].text, err.msg);
    /* every check comes before the builder is touched */
    assert_int_equal(hg_urdf_add(b, path, NULL, NULL, NULL, 1, NULL, &err), -1);
    assert_null(hg_builder_body(b, "a"));
    hg_builder_free(b);
  }
}

/* a missing file */
static void file_errors(void **state) {
  hg_error err;
  assert_null(hg_urdf_load("data/urdf_bad/no_such_file.urdf", 0, NULL, &err));
  assert_non_null(strstr(err.msg, "data/urdf_bad/no_such_file.urdf: cannot open: "));
  /* a NULL err is allowed */
  assert_null(hg_urdf_load("data/urdf_bad/malformed.urdf", 0, NULL, NULL));
}

/* notes of a load as one string (caller frees), and the model (NULL with err on failure) */
static char *load_with_notes(const char *path, hg_urdf_options *opt, hg_model **m, hg_error *err) {
  char *text = NULL;
  size_t len = 0;
  opt->notes = open_memstream(&text, &len);
  assert_non_null(opt->notes);
  *m = hg_urdf_load_opt(path, opt, err);
  fclose(opt->notes);
  opt->notes = NULL;
  return text;
}

/* a massless leaf on a moving joint: the model loads with a note naming the link's line; id,
 * mass and bias work (the link adds nothing) and forward dynamics fail at that joint */
static void massless_link(void **state) {
  hg_urdf_options opt = {0};
  hg_error err;
  hg_model *m;
  char *text = load_with_notes("data/robots/massless_leaf.urdf", &opt, &m, &err);
  if (!m) fail_msg("%s", err.msg);
  if (!strstr(text, "data/robots/massless_leaf.urdf:5: note: link 'b' on moving joint 'j' "
                    "(line 6) has no mass"))
    fail_msg("notes: %s", text);
  free(text);
  hg_data *d = hg_data_new(m);
  double q[1] = {0.3}, v[1] = {2}, a[1] = {1}, tau[1], M[1], b[1];
  hg_rnea(m, d, q, v, a, NULL, tau);
  hg_crba(m, d, q, M);
  hg_bias(m, d, q, v, NULL, b);
  assert_near(tau[0], 0, 0);
  assert_near(M[0], 0, 0);
  assert_near(b[0], 0, 0);
  assert_int_not_equal(hg_aba(m, d, q, v, tau, NULL, a), 0);
  assert_non_null(strstr(d->err, "singular at joint 'j'"));
  hg_data_free(d);
  hg_model_free(m);
}

/* point masses off the link origin and 1e-18 inertias load (the round-off of moving them to the
 * link frame is within the tolerance). bob: mass 1.33687 at (0.0185, -0.1108, ~0) on a z joint,
 * so at swing = 0 the spin diagonal of M is the bob's m (x^2 + y^2) plus the speck's
 * 1 * (0.3^2 + 0.2^2) (its centre is at (0.3, 0.2, 0.1 - 0.5) in the bob's frame). */
static void point_masses(void **state) {
  hg_model *m = load("data/robots/point_masses.urdf", 0);
  hg_data *d = hg_data_new(m);
  double q[2] = {0, 0}, M[4];
  double bob = 1.33687 * (0.0185 * 0.0185 + 0.1108 * 0.1108);
  double speck = 0.3 * 0.3 + 0.2 * 0.2;
  hg_crba(m, d, q, M);
  /* the speck's own 1e-18 inertia changes M below this tolerance */
  assert_near(M[0], bob + speck, 1e-15);
  hg_data_free(d);
  hg_model_free(m);
  /* any centre of mass and orientation of a point mass is valid: 200 random ones */
  hg_rng rng;
  hg_rng_seed(&rng, 12345);
  for (int k = 0; k < 200; k++) {
    char path[] = "/tmp/hinge_point_XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    double c[3], rpy[3];
    for (int e = 0; e < 3; e++) c[e] = 2 * hg_rng_uniform(&rng) - 1;
    for (int e = 0; e < 3; e++) rpy[e] = 6 * hg_rng_uniform(&rng) - 3;
    c[2] *= 1e-17; /* a CAD round-off in one coordinate, as in the wild */
    assert_non_null(f);
    fprintf(f, "<robot name='p'><link name='a'><inertial><origin xyz='%.17g %.17g %.17g' "
            "rpy='%.17g %.17g %.17g'/><mass value='%.17g'/><inertia ixx='0' ixy='0' ixz='0' "
            "iyy='0' iyz='0' izz='0'/></inertial></link></robot>\n", c[0], c[1], c[2], rpy[0],
            rpy[1], rpy[2], 0.1 + 10 * hg_rng_uniform(&rng));
    fclose(f);
    hg_error err;
    hg_builder *b = hg_builder_new();
    if (hg_urdf_add(b, path, NULL, NULL, NULL, 1, NULL, &err)) fail_msg("%d: %s", k, err.msg);
    hg_builder_free(b);
    remove(path);
  }
}

/* every invalid inertia in one run: the first with its line and reason, the others named */
static void invalid_inertias_listed(void **state) {
  hg_urdf_options opt = {0};
  hg_error err;
  hg_model *m;
  char *text = load_with_notes("data/robots/placeholders.urdf", &opt, &m, &err);
  assert_null(m);
  if (!strstr(err.msg, "data/robots/placeholders.urdf:16: link 'cover': principal moments") ||
      !strstr(err.msg, "triangle inequality") ||
      !strstr(err.msg, "also invalid: 'rod' (line 22), 'plate' (line 28) (fix_inertia repairs them)"))
    fail_msg("%s", err.msg);
  /* the notes give each one's reason */
  assert_non_null(strstr(text, "placeholders.urdf:22: note: error: link 'rod': principal moments"));
  assert_non_null(strstr(text, "placeholders.urdf:28: note: error: link 'plate': rotational "
                               "inertia is not positive semi-definite"));
  free(text);
}

/* fix_inertia repairs them as placeholders.urdf says, derived by hand:
 *   cover: 1e-6 (1 1^T) has moments 0, 0, 3e-6 along u = (1, 1, 1)/sqrt 3; raising the two zero
 *          moments to 1.5e-6 gives 1.5e-6 1 + 1.5e-6 u u^T: diagonal 2e-6, products 0.5e-6;
 *   rod:   diag(0.1, 0.1, 0.3) -> diag(0.15, 0.15, 0.3);
 *   plate: moments -1e-6 along (1, -1)/sqrt 2 and 1 along (1, 1)/sqrt 2 in the xy plane; the
 *          negative one clamped to 0 leaves 1 (1, 1)(1, 1)^T / 2: xx = yy = xy = 0.5, zz = 1. */
static void fix_inertia(void **state) {
  hg_urdf_options opt = {0};
  hg_error err;
  hg_model *m;
  opt.fix_inertia = 1;
  char *text = load_with_notes("data/robots/placeholders.urdf", &opt, &m, &err);
  if (!m) fail_msg("%s", err.msg);
  static const char *const expected[] = {
      "placeholders.urdf:16: note: link 'cover': inertia repaired (fix_inertia): principal "
      "moments ",
      "-> 1.5e-06 1.5e-06 3e-06\n",
      "placeholders.urdf:22: note: link 'rod': inertia repaired (fix_inertia): principal moments "
      "0.1 0.1 0.3 -> 0.15 0.15 0.3\n",
      "placeholders.urdf:28: note: link 'plate': inertia repaired (fix_inertia): principal "
      "moments -1e-06 1 1 -> ",
  };
  for (size_t k = 0; k < sizeof expected / sizeof expected[0]; k++)
    if (!strstr(text, expected[k])) fail_msg("missing note '%s' in:\n%s", expected[k], text);
  free(text);
  double cover[6] = {2e-6, 2e-6, 2e-6, 0.5e-6, 0.5e-6, 0.5e-6};
  double rod[6] = {0.15, 0.15, 0.3, 0, 0, 0}, plate[6] = {0.5, 0.5, 1, 0.5, 0, 0};
  /* round-off of the eigen-decomposition: a few eps of each tensor's scale */
  assert_vec_near(m->inertia[body(m, "cover")].I, cover, 6, 1e-20);
  assert_vec_near(m->inertia[body(m, "rod")].I, rod, 6, 1e-15);
  assert_vec_near(m->inertia[body(m, "plate")].I, plate, 6, 1e-15);
  hg_model_free(m);
}

/* package:// meshes: found through the package_path option, ROS_PACKAGE_PATH, or the folders
 * that hold the URDF file; a missing mesh is a note */
static void package_paths(void **state) {
  const char *file = "data/robots/gripper_description/urdf/gripper.urdf";
  const char *mesh = "data/robots/gripper_description/meshes/finger.stl";
  hg_urdf_options opt = {0};
  hg_error err;
  hg_model *m;
  /* the URDF file's own package folder */
  unsetenv("ROS_PACKAGE_PATH");
  char *text = load_with_notes(file, &opt, &m, &err);
  if (!m) fail_msg("%s", err.msg);
  assert_int_equal(m->ngeom, 3);
  assert_string_equal(m->geom[0].mesh, "data/robots/gripper_description/meshes/finger.stl");
  if (!strstr(text, "gripper.urdf:25: note: mesh file "
                    "'data/robots/gripper_description/meshes/missing.stl' (from "
                    "'package://gripper_description/meshes/missing.stl') cannot be read"))
    fail_msg("%s", text);
  if (!strstr(text, "gripper.urdf: note: skipped 1 <transmission>, 2 <gazebo> elements "
                    "(--verbose lists them)\n") ||
      !strstr(text, "gripper.urdf:46: note: 2 joints have <dynamics damping/friction> that hinge "
                    "does not apply"))
    fail_msg("%s", text);
  free(text);
  hg_model_free(m);
  /* a copy of the package elsewhere, through package_path and through ROS_PACKAGE_PATH */
  char dir[256], pkg[300], meshes[320], copy[360];
  assert_int_equal(hg_test_temp_dir("pkg", dir, sizeof dir), 0);
  snprintf(pkg, sizeof pkg, "%s/gripper_description", dir);
  snprintf(meshes, sizeof meshes, "%s/meshes", pkg);
  snprintf(copy, sizeof copy, "%s/finger.stl", meshes);
  assert_int_equal(mkdir(pkg, 0700), 0);
  assert_int_equal(mkdir(meshes, 0700), 0);
  size_t len;
  char *bytes = hg_test_read_file(mesh, &len);
  FILE *f = fopen(copy, "wb");
  assert_non_null(bytes);
  assert_non_null(f);
  fwrite(bytes, 1, len, f);
  fclose(f);
  free(bytes);
  char list[400];
  snprintf(list, sizeof list, "/nonexistent:%s", dir);
  opt.package_path = list;
  m = hg_urdf_load_opt(file, &opt, &err);
  assert_non_null(m);
  assert_string_equal(m->geom[0].mesh, copy);
  hg_model_free(m);
  opt.package_path = NULL;
  setenv("ROS_PACKAGE_PATH", pkg, 1); /* a folder that is the package itself */
  m = hg_urdf_load_opt(file, &opt, &err);
  assert_non_null(m);
  assert_string_equal(m->geom[0].mesh, copy);
  hg_model_free(m);
  unsetenv("ROS_PACKAGE_PATH");
  hg_test_remove_dir(meshes);
  hg_test_remove_dir(pkg);
  hg_test_remove_dir(dir);
}

/* mimic fingers, by hand: right_joint = 1 * left_joint + 0, both prismatic along horizontal
 * axes (gravity does nothing), each finger 0.1 kg. One DoF: a force 1 N on the left finger moves
 * the coupled mass 0.1 + 1^2 0.1 = 0.2 kg at 5 m/s^2, both fingers alike; 1 N on the right one
 * does the same (mu = 1); the coupling's force is the right finger's share, 0.1 * 5 = 0.5 N. */
static void mimic_fingers(void **state) {
  hg_model *m = load("data/robots/gripper_description/urdf/gripper.urdf", 0);
  assert_int_equal(m->nmimic, 1);
  assert_int_equal(m->mimic_follower[0], body(m, "right_finger"));
  assert_int_equal(m->mimic_leader[0], body(m, "left_finger"));
  hg_data *d = hg_data_new(m);
  hg_mimic_ws *w = hg_mimic_ws_new(m);
  double q[2] = {0.01, 0.3}, v[2] = {0.2, 7}, tau[2] = {1, 0}, a[2], lambda;
  hg_mimic_project(m, q, v);
  assert_near(q[1], 0.01, 0);
  assert_near(v[1], 0.2, 0);
  assert_int_equal(hg_mimic_aba(m, d, w, q, v, tau, NULL, a, &lambda), 0);
  assert_near(a[0], 5, 1e-14);
  assert_near(a[1], 5, 1e-14);
  assert_near(fabs(lambda), 0.5, 1e-14);
  tau[0] = 0, tau[1] = 1;
  assert_int_equal(hg_mimic_aba(m, d, w, q, v, tau, NULL, a, NULL), 0);
  assert_near(a[0], 5, 1e-14);
  assert_near(a[1], 5, 1e-14);
  hg_mimic_ws_free(w);
  hg_data_free(d);
  hg_model_free(m);
}

/* mimic against the reduced equations: with v = G y (G: identity columns, the follower's row
 * mu times its leader's), vdot = G (G^T M G)^-1 G^T (tau - b), from CRBA and the bias forces.
 * Two couplings on the 6-DoF arm (joint3 = -0.5 joint2 + 0.1, joint6 = 2 joint5), floating base,
 * random states; merged and unmerged. Tolerance: two exact formulas, ~1e-14 apart (the k + 1
 * ABA passes subtract a0); 1e-10 relative still catches a wrong sign of mu (errors ~1). */
static void mimic_reduced(void **state) {
  hg_builder *b = hg_builder_new();
  hg_error err;
  assert_int_equal(hg_urdf_add(b, "data/robots/fixed_links.urdf", NULL, NULL, NULL, 1, NULL, &err), 0);
  assert_int_equal(hg_builder_add_mimic(b, "joint3", "joint2", -0.5, 0.1, &err), 0);
  assert_int_equal(hg_builder_add_mimic(b, "joint6", "joint5", 2, 0, &err), 0);
  assert_int_equal(hg_builder_add_mimic(b, "joint6", "joint1", 2, 0, &err), -1);
  hg_model *full = hg_builder_compile(b, &err);
  assert_non_null(full);
  hg_builder_free(b);
  hg_model *mm = hg_model_merge_fixed(full, NULL, NULL, &err);
  assert_non_null(mm);
  assert_int_equal(mm->nmimic, 2);
  for (int pass = 0; pass < 2; pass++) {
    hg_model *m = pass ? mm : full;
    int nv = m->nv, ny = nv - 2;
    hg_data *d = hg_data_new(m);
    hg_mimic_ws *w = hg_mimic_ws_new(m);
    double q[64], v[64], tau[64], bias[64], a[64], M[64 * 64], G[64 * 64], Mr[64 * 64], r[64];
    hg_rng rng;
    hg_rng_seed(&rng, 3);
    for (int t = 0; t < 10; t++) {
      hg_model_random(m, &rng, q);
      for (int k = 0; k < nv; k++) v[k] = hg_rng_range(&rng, -1, 1), tau[k] = hg_rng_range(&rng, -3, 3);
      hg_mimic_project(m, q, v);
      assert_int_equal(hg_mimic_aba(m, d, w, q, v, tau, NULL, a, NULL), 0);
      /* G: columns are the DoFs that are no follower */
      hg_crba(m, d, q, M);
      hg_bias(m, d, q, v, NULL, bias);
      memset(G, 0, sizeof G);
      for (int i = 0, c = 0; i < nv; i++) {
        int follower = -1;
        for (int k = 0; k < m->nmimic; k++)
          if (m->v_adr[m->mimic_follower[k]] == i) follower = k;
        if (follower >= 0) continue;
        G[i * ny + c] = 1;
        for (int k = 0; k < m->nmimic; k++)
          if (m->v_adr[m->mimic_leader[k]] == i)
            G[m->v_adr[m->mimic_follower[k]] * ny + c] = m->mimic_mult[k];
        c++;
      }
      /* Mr = G^T M G, r = G^T (tau - b); solve Mr y = r by Gauss-Jordan (SPD, no pivoting) */
      for (int i = 0; i < ny; i++) {
        r[i] = 0;
        for (int k = 0; k < nv; k++) r[i] += G[k * ny + i] * (tau[k] - bias[k]);
        for (int j = 0; j < ny; j++) {
          double s = 0;
          for (int k = 0; k < nv; k++)
            for (int l = 0; l < nv; l++) s += G[k * ny + i] * M[k * nv + l] * G[l * ny + j];
          Mr[i * ny + j] = s;
        }
      }
      for (int c = 0; c < ny; c++)
        for (int i = 0; i < ny; i++) {
          if (i == c) continue;
          double f = Mr[i * ny + c] / Mr[c * ny + c];
          for (int j = 0; j < ny; j++) Mr[i * ny + j] -= f * Mr[c * ny + j];
          r[i] -= f * r[c];
        }
      for (int i = 0; i < nv; i++) {
        double x = 0;
        for (int c = 0; c < ny; c++) x += G[i * ny + c] * r[c] / Mr[c * ny + c];
        if (!(fabs(x - a[i]) <= 1e-10 * (1 + fabs(x)))) fail_msg("pass %d dof %d: %.17g vs %.17g", pass, i, a[i], x);
      }
      /* the coupling holds on the accelerations */
      assert_near(a[m->v_adr[m->mimic_follower[0]]], -0.5 * a[m->v_adr[m->mimic_leader[0]]], 1e-12);
    }
    hg_mimic_ws_free(w);
    hg_data_free(d);
  }
  hg_model_free(mm);
  hg_model_free(full);
}

/* a fixed joint with a <mimic> (a reduced gripper as vendors ship it) loads: the <mimic> couples
 * nothing and is ignored, with one note counting them; --verbose names each */
static void fixed_mimic_ignored(void **state) {
  hg_urdf_options opt = {0};
  hg_error err;
  hg_model *m;
  char *text = load_with_notes("data/robots/fixed_mimic.urdf", &opt, &m, &err);
  if (!m) fail_msg("%s", err.msg);
  assert_int_equal(m->nv, 1);
  assert_int_equal(m->nmimic, 0);
  if (!strstr(text, "data/robots/fixed_mimic.urdf:15: note: 2 fixed joints have a <mimic> (the "
                    "first 'finger_a_joint'), ignored: a fixed joint has no coordinate to couple"))
    fail_msg("notes: %s", text);
  free(text);
  hg_model_free(m);
  opt.verbose = 1;
  text = load_with_notes("data/robots/fixed_mimic.urdf", &opt, &m, &err);
  assert_non_null(m);
  if (!strstr(text, "fixed_mimic.urdf:15: note: joint 'finger_a_joint' is fixed: its <mimic> of "
                    "'motor_joint' is ignored") ||
      !strstr(text, "fixed_mimic.urdf:19: note: joint 'finger_b_joint' is fixed"))
    fail_msg("notes: %s", text);
  free(text);
  hg_model_free(m);
}

/* several <material>s in one <visual> (Collada exports): the first is used, as urdfdom does,
 * one note counts the visuals */
static void several_materials(void **state) {
  hg_urdf_options opt = {0};
  hg_error err;
  hg_model *m;
  char *text = load_with_notes("data/robots/several_materials.urdf", &opt, &m, &err);
  if (!m) fail_msg("%s", err.msg);
  assert_int_equal(m->ngeom, 2);
  const float first[4] = {0.25f, 0.5f, 0.75f, 1}, red[4] = {1, 0, 0, 1};
  for (int k = 0; k < 4; k++) {
    assert_true(m->geom[0].rgba[k] == first[k]);
    assert_true(m->geom[1].rgba[k] == red[k]);
  }
  if (!strstr(text, "data/robots/several_materials.urdf:7: note: 2 <visual>s have several "
                    "<material> elements (the first on link 'body'): the first of each is used"))
    fail_msg("notes: %s", text);
  free(text);
  hg_model_free(m);
}

/* meshes that cannot be found: three notes in full, then one line with the count */
static void missing_meshes_summarized(void **state) {
  hg_urdf_options opt = {0};
  hg_error err;
  hg_model *m;
  unsetenv("ROS_PACKAGE_PATH");
  char *text = load_with_notes("data/robots/missing_meshes.urdf", &opt, &m, &err);
  if (!m) fail_msg("%s", err.msg);
  int lines = 0;
  for (const char *t = text; (t = strstr(t, "package not found")); t++) lines++;
  assert_int_equal(lines, 3);
  if (!strstr(text, "missing_meshes.urdf:8: note: mesh 'package://absent_description/meshes/c.dae'") ||
      strstr(text, "meshes/d.dae") ||
      !strstr(text, "data/robots/missing_meshes.urdf: note: 5 meshes in all cannot be found or "
                    "read and are not shown (the first 3 are noted above"))
    fail_msg("notes: %s", text);
  free(text);
  hg_model_free(m);
}

/* writes text to dir/name */
static void put_file(const char *dir, const char *name, const char *text) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  assert_int_equal(fclose(f), 0);
}

/* package://NAME is the package whose package.xml says NAME, wherever its folder is and whatever
 * it is called; a folder called NAME is only the fallback */
static void package_names(void **state) {
  const char *file = "data/robots/gripper_description/urdf/gripper.urdf";
  char dir[256], a[300], b[300], checkout[320], impostor[320], meshes[340], mesh[360];
  assert_int_equal(hg_test_temp_dir("pkgname", dir, sizeof dir), 0);
  snprintf(a, sizeof a, "%s/a", dir);
  snprintf(b, sizeof b, "%s/b", dir);
  /* a/gripper_description is a folder of the right name holding another package */
  snprintf(impostor, sizeof impostor, "%s/gripper_description", a);
  /* b/src/checkout-2 holds the package gripper_description, two levels down */
  snprintf(checkout, sizeof checkout, "%s/src", b);
  assert_int_equal(mkdir(a, 0700), 0);
  assert_int_equal(mkdir(b, 0700), 0);
  assert_int_equal(mkdir(impostor, 0700), 0);
  assert_int_equal(mkdir(checkout, 0700), 0);
  snprintf(checkout, sizeof checkout, "%s/src/checkout-2", b);
  assert_int_equal(mkdir(checkout, 0700), 0);
  snprintf(meshes, sizeof meshes, "%s/meshes", checkout);
  assert_int_equal(mkdir(meshes, 0700), 0);
  put_file(impostor, "package.xml", "<package format=\"3\"><name>other_description</name></package>\n");
  put_file(checkout, "package.xml",
           "<?xml version=\"1.0\"?>\n<package format=\"2\">\n  <name>\n    gripper_description\n"
           "  </name>\n  <version>1.0.0</version>\n</package>\n");
  put_file(meshes, "finger.stl", "solid f\nendsolid f\n");
  snprintf(mesh, sizeof mesh, "%s/finger.stl", meshes);
  char list[700];
  snprintf(list, sizeof list, "%s:%s", a, b);
  hg_urdf_options opt = {0};
  hg_error err;
  opt.package_path = list;
  unsetenv("ROS_PACKAGE_PATH");
  hg_model *m = hg_urdf_load_opt(file, &opt, &err);
  if (!m) fail_msg("%s", err.msg);
  assert_string_equal(m->geom[0].mesh, mesh);
  hg_model_free(m);
  /* through ROS_PACKAGE_PATH too */
  opt.package_path = NULL;
  setenv("ROS_PACKAGE_PATH", list, 1);
  m = hg_urdf_load_opt(file, &opt, &err);
  assert_non_null(m);
  assert_string_equal(m->geom[0].mesh, mesh);
  hg_model_free(m);
  unsetenv("ROS_PACKAGE_PATH");
  /* without the manifest, the folder named gripper_description is taken (the fallback) */
  char manifest[400];
  snprintf(manifest, sizeof manifest, "%s/package.xml", checkout);
  assert_int_equal(unlink(manifest), 0);
  opt.package_path = list;
  m = hg_urdf_load_opt(file, &opt, &err);
  assert_non_null(m);
  char expect[400];
  snprintf(expect, sizeof expect, "%s/meshes/finger.stl", impostor);
  assert_string_equal(m->geom[0].mesh, expect);
  hg_model_free(m);
  hg_test_remove_dir(dir);
}

/* an unexpanded xacro file is refused with what to do */
static void xacro_refused(void **state) {
  hg_error err;
  assert_null(hg_urdf_load("data/robots/unexpanded_xacro.urdf", 0, NULL, &err));
  if (!strstr(err.msg, "data/robots/unexpanded_xacro.urdf:4: <xacro:property> is a xacro "
                       "element: this is an unexpanded xacro file; run 'xacro FILE > robot.urdf'"))
    fail_msg("%s", err.msg);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(inertia_offset_and_yaw),
      cmocka_unit_test(inertia_roll_and_products),
      cmocka_unit_test(inertia_general_rpy),
      cmocka_unit_test(arm_mass_matrix),
      cmocka_unit_test(arm_structure),
      cmocka_unit_test(joint_offsets_rpy),
      cmocka_unit_test(pendulum),
      cmocka_unit_test(planar_and_floating),
      cmocka_unit_test(geometry),
      cmocka_unit_test(skipping_notes),
      cmocka_unit_test(prefix_parent_pose),
      cmocka_unit_test(world_root_link),
      cmocka_unit_test(error_paths),
      cmocka_unit_test(file_errors),
      cmocka_unit_test(massless_link),
      cmocka_unit_test(point_masses),
      cmocka_unit_test(invalid_inertias_listed),
      cmocka_unit_test(fix_inertia),
      cmocka_unit_test(package_paths),
      cmocka_unit_test(xacro_refused),
      cmocka_unit_test(mimic_fingers),
      cmocka_unit_test(mimic_reduced),
      cmocka_unit_test(fixed_mimic_ignored),
      cmocka_unit_test(several_materials),
      cmocka_unit_test(missing_meshes_summarized),
      cmocka_unit_test(package_names),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
