/* test_scene.c: the scene reader (sim/scene.h) on the scenes in tests/data/scenes, checked value by
 * value, and on every malformed scene in tests/data/scenes_bad, each of which must fail with the
 * message "file:line:column: ..." listed in the table below. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scene.h"
#include "sims.h"

#define TOL 1e-12
#define PI 3.14159265358979323846

/* ---- helpers ---- */

static void assert_near(double a, double b, double tol) {
  if (!(fabs(a - b) <= tol)) fail_msg("%.17g != %.17g (tolerance %g)", a, b, tol);
}

static void assert_vec_near(const double *a, const double *b, int n, double tol) {
  for (int k = 0; k < n; k++) assert_near(a[k], b[k], tol);
}

static const hg_body_spec *body(hg_scene *s, const char *name) {
  const hg_body_spec *b = hg_builder_body(s->builder, name);
  if (!b) fail_msg("no body '%s'", name);
  return b;
}

/* the whole of a text file, NUL-terminated (the caller frees it) */
static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  char *text;
  long n;
  if (!f) fail_msg("cannot open %s", path);
  fseek(f, 0, SEEK_END);
  n = ftell(f);
  rewind(f);
  text = malloc((size_t)n + 1);
  assert_non_null(text);
  assert_int_equal(fread(text, 1, (size_t)n, f), (size_t)n);
  text[n] = 0;
  fclose(f);
  return text;
}

/* ---- a scene with every section ---- */

/* base: fixed at (0, 0, 1) turned 90 degrees about z; I_o = I_c + m (|c|^2 1 - c c^T) with
 * c = (0, 0, 0.1), m = 10 adds 0.1 to xx and yy */
static void full_bodies(void **state) {
  hg_scene *s = hg_test_scene("data/scenes/full.yaml");
  const hg_body_spec *b = body(s, "base"), *u = body(s, "upper"), *l = body(s, "lower");
  double Rz90[9] = {0, -1, 0, 1, 0, 0, 0, 0, 1}, p[3] = {0, 0, 1}, I[6] = {0.2, 0.3, 0.3, 0, 0, 0};
  double h[3] = {0, 0, 1}, y[3] = {0, 1, 0}, x[3] = {1, 0, 0};
  assert_string_equal(s->title, "Arm, probe and ball");
  assert_non_null(strstr(s->description, "a free probe"));
  assert_near(s->gravity[2], -9.80665, 0);
  assert_int_equal(b->joint.type, HG_JOINT_FIXED);
  assert_vec_near(b->offset.R, Rz90, 9, TOL);
  assert_vec_near(b->offset.p, p, 3, 0);
  assert_near(b->inertia.m, 10, 0);
  assert_vec_near(b->inertia.h, h, 3, TOL);
  assert_vec_near(b->inertia.I, I, 6, TOL);
  assert_string_equal(u->parent, "base");
  assert_string_equal(u->joint_name, "shoulder");
  assert_int_equal(u->joint.type, HG_JOINT_REVOLUTE);
  assert_vec_near(u->joint.axis, y, 3, 0);
  assert_near(u->offset.p[2], 0.1, 0);
  assert_true(u->limits.has_position && u->limits.has_effort && u->limits.has_velocity);
  assert_near(u->limits.lower, -1.5, 0);
  assert_near(u->limits.upper, 1.5, 0);
  assert_near(u->limits.effort, 50, 0);
  assert_near(u->limits.velocity, 2, 0);
  assert_int_equal(l->joint.type, HG_JOINT_UNIVERSAL);
  assert_vec_near(l->joint.axis, x, 3, 0);
  assert_vec_near(l->joint.axis2, y, 3, 0);
  assert_int_equal(body(s, "probe")->joint.type, HG_JOINT_FREE);
  assert_int_equal(body(s, "ball")->joint.type, HG_JOINT_SPHERICAL);
  assert_string_equal(body(s, "r_base")->parent, "base");
  assert_near(body(s, "r_base")->offset.p[1], 0.5, 0);
  hg_scene_free(s);
}

/* the compiled model: 5 bodies of the scene and 4 of the URDF, 5 geometries */
static void full_model_and_geometry(void **state) {
  hg_scene *s = hg_test_scene("data/scenes/full.yaml");
  hg_error err;
  hg_model *m = hg_builder_compile(s->builder, &err);
  const hg_geom *g;
  if (!m) fail_msg("%s", err.msg);
  assert_int_equal(m->nbody, 10);
  assert_true(hg_model_joint(m, "r_shoulder") > 0);
  assert_int_equal(m->ngeom, 5);
  for (int k = 0; k < m->ngeom; k++) {
    g = &m->geom[k];
    if (g->type == HG_GEOM_BOX) {
      assert_near(g->size[0], 0.4, 0);
      assert_near(g->size[2], 0.2, 0);
      assert_true(fabs(g->rgba[2] - 0.4f) < 1e-6);
    } else if (g->type == HG_GEOM_CAPSULE) {
      assert_near(g->size[0], 0.05, 0);
      assert_near(g->size[1], 0.5, 0);
      assert_int_equal(g->collision, 1);
      assert_true(fabs(g->rgba[0] - 0.7f) < 1e-6);
    } else if (g->type == HG_GEOM_SPHERE) {
      assert_near(g->size[0], 0.06, 0);
    } else if (g->type == HG_GEOM_CONE) {
      assert_near(g->size[1], 0.2, 0);
      assert_near(g->pose.p[2], 0.2, 0);
    }
  }
  hg_model_free(m);
  hg_scene_free(s);
}

/* markers: on bodies and at the top level; rpy (pi, 0, 0) flips y and z */
static void full_markers(void **state) {
  hg_scene *s = hg_test_scene("data/scenes/full.yaml");
  const hg_marker *pp = hg_scene_marker(s, "probe_port"), *tp = hg_scene_marker(s, "r_tool_point");
  double Rx180[9] = {1, 0, 0, 0, -1, 0, 0, 0, -1};
  assert_int_equal(s->nmarker, 5);
  assert_non_null(pp);
  assert_string_equal(pp->body, "probe");
  assert_string_equal(pp->port, "probe");
  assert_vec_near(pp->pose.R, Rx180, 9, TOL);
  assert_near(pp->pose.p[2], 0.3, 0);
  assert_int_equal(pp->src.line, 42);
  assert_string_equal(pp->src.file, "data/scenes/full.yaml");
  assert_non_null(tp);
  assert_string_equal(tp->body, "r_tool");
  assert_null(tp->port);
  assert_null(hg_scene_marker(s, "nowhere"));
  hg_scene_free(s);
}

static void full_forces(void **state) {
  hg_scene *s = hg_test_scene("data/scenes/full.yaml");
  const hg_force_spec *f;
  assert_int_equal(s->nforce, 6);
  f = hg_scene_force(s, "earth");
  assert_int_equal(f->type, HG_FORCE_CENTRAL_GRAVITY);
  assert_int_equal(f->enabled, 0);
  assert_near(f->mu, 3.986e14, 0);
  assert_near(f->centre[2], -6.371e6, 0);
  f = hg_scene_force(s, "shoulder_spring");
  assert_int_equal(f->type, HG_FORCE_JOINT_SPRING);
  assert_string_equal(f->joint, "shoulder");
  assert_int_equal(f->nrest, 1);
  assert_near(f->rest[0], 0.2, 0);
  assert_near(f->damping, 0.5, 0);
  f = hg_scene_force(s, "tether");
  assert_string_equal(f->marker_a, "tip");
  assert_string_equal(f->marker_b, "chute_point");
  assert_int_equal(f->compression_only, 1);
  assert_near(f->free_length, 1.5, 0);
  f = hg_scene_force(s, "probe_drag");
  assert_string_equal(f->body, "probe");
  assert_near(f->atm.rho0, 1.225, 0); /* the top-level atmosphere */
  assert_near(f->cop[2], -0.1, 0);
  f = hg_scene_force(s, "engine");
  assert_near(f->t_on, 1, 0);
  assert_near(f->t_off, 3, 0);
  assert_near(f->force[2], 20, 0);
  assert_int_equal(f->enabled, 1);
  f = hg_scene_force(s, "chute");
  assert_int_equal(f->type, HG_FORCE_PARACHUTE);
  assert_string_equal(f->marker, "chute_point");
  assert_near(f->atm.rho0, 0.02, 0); /* inline */
  assert_near(f->atm.radius, 3.3895e6, 0);
  assert_null(hg_scene_force(s, "nowhere"));
  hg_scene_free(s);
}

/* initial state: joint q and v (quaternions normalized), a free body's world pose and twist */
static void full_initial_and_modes(void **state) {
  hg_scene *s = hg_test_scene("data/scenes/full.yaml");
  double quat[4] = {0, 1, 0, 0}, Rz90[9] = {0, -1, 0, 1, 0, 0, 0, 0, 1}, pos[3] = {3, 0, 2};
  double twist[6] = {0, 0, 0.1, -0.5, 0, 0}, amp[2] = {0.2, 0.1};
  assert_int_equal(s->njinit, 2);
  assert_string_equal(s->jinit[0].joint, "shoulder");
  assert_true(s->jinit[0].has_q && s->jinit[0].has_v);
  assert_near(s->jinit[0].q[0], 0.3, 0);
  assert_near(s->jinit[0].v[0], -0.1, 0);
  assert_true(s->jinit[1].has_q && !s->jinit[1].has_v);
  assert_vec_near(s->jinit[1].q, quat, 4, 0);
  assert_int_equal(s->nbinit, 1);
  assert_string_equal(s->binit[0].body, "probe");
  assert_vec_near(s->binit[0].pose.R, Rz90, 9, TOL);
  assert_vec_near(s->binit[0].pose.p, pos, 3, 0);
  assert_vec_near(s->binit[0].twist, twist, 6, 0);
  assert_int_equal(s->nmode, 2);
  assert_string_equal(s->mode[0].joint, "r_shoulder");
  assert_int_equal(s->mode[0].mode, HG_MODE_LOCKED);
  assert_int_equal(s->mode[0].has_profile, 0);
  assert_int_equal(s->mode[1].mode, HG_MODE_PRESCRIBED);
  assert_int_equal(s->mode[1].profile.kind, HG_PROFILE_SINUSOID);
  assert_vec_near(s->mode[1].profile.amplitude, amp, 2, 0);
  assert_near(s->mode[1].profile.omega, 3.14, 0);
  assert_near(s->mode[1].profile.phase, 0.5, 0);
  hg_scene_free(s);
}

/* events: time and condition triggers, every kind of action */
static void full_events(void **state) {
  hg_scene *s = hg_test_scene("data/scenes/full.yaml");
  const hg_event_spec *e = s->event;
  assert_int_equal(s->nevent, 5);
  assert_string_equal(e[0].name, "release");
  assert_int_equal(e[0].trigger, HG_TRIGGER_TIME);
  assert_near(e[0].time, 2.5, 0);
  assert_int_equal(e[0].naction, 3);
  assert_int_equal(e[0].action[0].type, HG_ACTION_SET_MODE);
  assert_string_equal(e[0].action[0].joint, "r_shoulder");
  assert_int_equal(e[0].action[0].mode.mode, HG_MODE_FREE);
  assert_int_equal(e[0].action[1].type, HG_ACTION_ENABLE_FORCE);
  assert_string_equal(e[0].action[1].force, "chute");
  assert_int_equal(e[0].action[2].type, HG_ACTION_IMPULSE);
  assert_string_equal(e[0].action[2].body, "probe");
  assert_string_equal(e[0].action[2].marker_a, "probe_port");
  assert_near(e[0].action[2].linear[2], 1, 0);
  assert_int_equal(e[1].trigger, HG_TRIGGER_DISTANCE);
  assert_string_equal(e[1].marker_b, "probe_port");
  assert_int_equal(e[1].direction, -1);
  assert_int_equal(e[1].action[0].type, HG_ACTION_ATTACH);
  assert_string_equal(e[1].action[0].joint, "dock_base_port_probe_port");
  assert_int_equal(e[1].action[1].type, HG_ACTION_DISABLE_FORCE);
  assert_int_equal(e[2].trigger, HG_TRIGGER_JOINT_Q);
  assert_int_equal(e[2].direction, 1);
  assert_int_equal(e[2].once, 0);
  assert_int_equal(e[2].action[0].type, HG_ACTION_UNDOCK);
  assert_int_equal(e[2].action[0].detach, 1);
  assert_int_equal(e[2].action[1].type, HG_ACTION_DETACH);
  assert_string_equal(e[2].action[1].body, "lower");
  assert_string_equal(e[3].name, "event4");
  assert_int_equal(e[3].trigger, HG_TRIGGER_ALTITUDE);
  assert_int_equal(e[3].once, 1);
  assert_int_equal(e[3].direction, 0);
  assert_int_equal(e[3].action[0].type, HG_ACTION_REMOVE);
  assert_int_equal(e[4].trigger, HG_TRIGGER_JOINT_LOAD);
  assert_int_equal(e[4].action[0].mode.profile.kind, HG_PROFILE_MOVE);
  assert_near(e[4].action[0].mode.profile.target[0], 1, 0);
  assert_near(e[4].action[0].mode.profile.duration, 2, 0);
  assert_int_equal(s->ncapture, 1);
  assert_string_equal(s->capture[0].joint, "dock_base_port_probe_port");
  assert_near(s->capture[0].angle_tol, 0.1, 0);
  hg_scene_free(s);
}

static void full_run_settings(void **state) {
  hg_scene *s = hg_test_scene("data/scenes/full.yaml");
  assert_int_equal(s->integ.method, HG_INTEG_CVODE_BDF);
  assert_near(s->integ.rtol, 1e-8, 0);
  assert_near(s->integ.atol_length, 2e-9, 0);
  assert_near(s->integ.atol_linvel, 2e-7, 0);
  assert_near(s->integ.max_step, 0.1, 0);
  assert_near(s->integ.recentre, 0.5, 0);
  assert_int_equal(s->integ.max_steps, 50000);
  assert_near(s->t_end, 20, 0);
  assert_near(s->output.dt, 0.02, 0);
  assert_int_equal(s->output.npair, 1);
  assert_string_equal(s->output.pair[0].body_b, "probe");
  assert_int_equal(s->output.plots, 0);
  hg_scene_free(s);
}

/* ---- defaults, meshes, the documented example ---- */

static void minimal_defaults(void **state) {
  hg_scene *s = hg_test_scene("data/scenes/minimal.yaml");
  hg_integ_options def;
  hg_integ_default_options(&def, HG_INTEG_CVODE_ADAMS);
  assert_null(s->title);
  assert_near(s->gravity[2], -9.81, 0);
  assert_int_equal(s->has_atmosphere, 0);
  assert_int_equal(s->integ.method, HG_INTEG_CVODE_ADAMS);
  assert_near(s->integ.rtol, def.rtol, 0);
  assert_near(s->integ.h, def.h, 0);
  assert_near(s->t_start, 0, 0);
  assert_near(s->t_end, 10, 0);
  assert_near(s->output.dt, 0.01, 0);
  assert_int_equal(s->output.plots, 1);
  assert_int_equal(
      s->nmarker + s->nforce + s->njinit + s->nbinit + s->nmode + s->nevent + s->ncapture, 0);
  assert_string_equal(body(s, "bob")->parent, "world");
  hg_scene_free(s);
}

/* an atol mapping with one kind: the others keep their defaults (the old reader demanded every
 * kind and failed with "'length' must be positive, got 0" at 1:1) */
static void partial_atol(void **state) {
  hg_scene *s = hg_test_scene("data/scenes/atol_partial.yaml");
  hg_integ_options def;
  hg_integ_default_options(&def, HG_INTEG_CVODE_BDF);
  assert_near(s->integ.atol_angle, 1e-9, 0);
  assert_near(s->integ.atol_length, def.atol_length, 0);
  assert_near(s->integ.atol_angvel, def.atol_angvel, 0);
  assert_near(s->integ.atol_linvel, def.atol_linvel, 0);
  hg_scene_free(s);
}

/* cube [0, 2]^3 of density 1000: m = 8000, c = (1, 1, 1), I_c = m (2^2 + 2^2) / 12; the
 * tetrahedron (0,0,0) (1,0,0) (0,2,0) (0,0,3) has volume 1 and centroid (1/4, 1/2, 3/4), moved
 * by (1, 0, 0) */
static void mesh_inertia(void **state) {
  hg_scene *s = hg_test_scene("data/scenes/mesh.yaml");
  hg_error err;
  hg_model *m = hg_builder_compile(s->builder, &err);
  double c[3], Ic[6], cube_c[3] = {1, 1, 1}, Icube = 8000.0 * 8 / 12, tet_c[3] = {1.25, 0.5, 0.75};
  if (!m) fail_msg("%s", err.msg);
  hg_inertia_com(&body(s, "block")->inertia, c, Ic);
  assert_near(body(s, "block")->inertia.m, 8000, 1e-9);
  assert_vec_near(c, cube_c, 3, 1e-12);
  assert_near(Ic[0], Icube, 1e-8);
  assert_near(Ic[3], 0, 1e-8);
  hg_inertia_com(&body(s, "light")->inertia, c, Ic);
  assert_near(body(s, "light")->inertia.m, 3, 1e-12);
  assert_vec_near(c, tet_c, 3, 1e-12);
  assert_int_equal(m->ngeom, 1);
  assert_int_equal(m->geom[0].type, HG_GEOM_MESH);
  assert_non_null(strstr(m->geom[0].mesh, "cube_quads.obj"));
  assert_near(m->geom[0].size[1], 2, 0);
  hg_model_free(m);
  hg_scene_free(s);
}

/* the complete example of docs/scene-format.md is example.yaml, word for word, and it loads */
static void documented_example(void **state) {
  char *doc = slurp("../docs/scene-format.md"), *file = slurp("data/scenes/example.yaml");
  hg_scene *s = hg_test_scene("data/scenes/example.yaml");
  if (!strstr(doc, file))
    fail_msg("docs/scene-format.md does not hold data/scenes/example.yaml verbatim");
  assert_int_equal(s->ncapture, 1);
  assert_true(body(s, "target")->inertia.m > 0);
  assert_non_null(hg_builder_body(s->builder, "arm_link2"));
  hg_scene_free(s);
  free(doc);
  free(file);
}

/* bodies absent at the start: in the library (compiled on their own, roots on the world, with
 * their scene parents and geometry), not in the builder; their initial joint states wait in the
 * library; add actions hold the body, the marker, the pose and the twist */
static void library_and_add(void **state) {
  hg_scene *s = hg_test_scene("data/scenes/library.yaml");
  const hg_library *lib = &s->library;
  const hg_model *L = lib->model;
  double Rz30[9] = {cos(PI / 6), -sin(PI / 6), 0, sin(PI / 6), cos(PI / 6), 0, 0, 0, 1};
  double pos[3] = {0, 0, 0.4}, twist[6] = {0, 0, 0.1, 0, 0, 0.5};
  assert_non_null(hg_builder_body(s->builder, "boom"));
  assert_null(hg_builder_body(s->builder, "probe"));
  assert_null(hg_builder_body(s->builder, "antenna"));
  assert_null(hg_builder_body(s->builder, "panel"));
  assert_non_null(L);
  assert_int_equal(L->nbody, 4);
  int probe = hg_model_body(L, "probe"), antenna = hg_model_body(L, "antenna");
  int panel = hg_model_body(L, "panel");
  assert_int_equal(L->parent[probe], 0);
  assert_int_equal(L->parent[antenna], probe);
  assert_int_equal(L->parent[panel], 0);
  assert_int_equal(L->subtree_end[probe], antenna + 1);
  assert_string_equal(lib->parent[probe], "world");
  assert_string_equal(lib->parent[antenna], "probe");
  assert_string_equal(lib->parent[panel], "bus");
  assert_string_equal(L->jnt_name[antenna], "antenna_hinge");
  assert_near(L->jnt_offset[panel].p[0], -0.5, 0);
  assert_near(L->inertia[probe].m, 20, 0);
  assert_int_equal(L->ngeom, 2);
  assert_non_null(hg_scene_marker(s, "probe_tip"));
  /* initial states: the boom's in the scene, the absent joints' in the library */
  assert_int_equal(s->njinit, 1);
  assert_int_equal(lib->njinit, 2);
  assert_string_equal(lib->jinit[0].joint, "antenna_hinge");
  assert_near(lib->jinit[0].v[0], -0.2, 0);
  assert_true(lib->jinit[1].has_v && !lib->jinit[1].has_q);
  /* the adds */
  const hg_action *a = &s->event[0].action[0], *b = &s->event[1].action[0];
  assert_int_equal(a->type, HG_ACTION_ADD);
  assert_string_equal(a->body, "probe");
  assert_string_equal(a->marker_a, "bay");
  assert_vec_near(a->pose.R, Rz30, 9, TOL);
  assert_vec_near(a->pose.p, pos, 3, 0);
  assert_vec_near(a->twist, twist, 6, 0);
  assert_int_equal(b->type, HG_ACTION_ADD);
  assert_null(b->marker_a);
  assert_near(b->pose.R[0], 1, 0);
  hg_scene_free(s);
}

/* ---- closed loops ---- */

static const hg_loop_spec *loop_named(const hg_scene *s, const char *name) {
  for (int k = 0; k < s->nloop; k++)
    if (strcmp(s->loop[k].name, name) == 0) return &s->loop[k];
  fail_msg("no loop '%s'", name);
  return NULL;
}

/* every form of loop, its defaults, and close/open actions (also on a docking joint's name) */
static void loops_read(void **state) {
  (void)state;
  hg_scene *s = hg_test_scene("data/scenes/loops.yaml");
  const double z[3] = {0, 0, 1}, x[3] = {1, 0, 0};
  assert_int_equal(s->nloop, 5);
  const hg_loop_spec *pin = loop_named(s, "pin_c"), *weld = loop_named(s, "weld");
  const hg_loop_spec *ball = loop_named(s, "ball"), *gears = loop_named(s, "gears");
  const hg_loop_spec *grab = loop_named(s, "grab");
  assert_ptr_equal(pin, &s->loop[0]);
  /* a revolute loop: its axis normalized as a joint's, active by default, default tolerances */
  assert_false(pin->coupling);
  assert_int_equal(pin->type, HG_JOINT_REVOLUTE);
  assert_string_equal(pin->marker[0], "coupler_tip");
  assert_string_equal(pin->marker[1], "rocker_tip");
  assert_vec_near(pin->axis, z, 3, TOL);
  assert_true(pin->active);
  assert_near(pin->tol[0], 1e-3, 0);
  assert_near(pin->tol[1], 1e-3, 0);
  assert_null(pin->joint[0]);
  assert_string_equal(pin->src.file, "data/scenes/loops.yaml");
  assert_int_equal(pin->src.line, 40);
  assert_int_equal(pin->src.column, 5);
  /* a weld, open at the start, with its own assembly tolerances */
  assert_int_equal(weld->type, HG_JOINT_FIXED);
  assert_false(weld->active);
  assert_near(weld->tol[0], 0.01, 0);
  assert_near(weld->tol[1], 0.02, 0);
  assert_int_equal(ball->type, HG_JOINT_SPHERICAL);
  assert_string_equal(ball->marker[0], "crank_ball");
  assert_string_equal(ball->marker[1], "plate_ball");
  /* the coupling: leader, follower, ratio and offset */
  assert_true(gears->coupling);
  assert_string_equal(gears->joint[0], "gear_a");
  assert_string_equal(gears->joint[1], "gear_b");
  assert_near(gears->ratio, -2, 0);
  assert_near(gears->offset, 0.1, 0);
  assert_true(gears->active);
  assert_null(gears->marker[0]);
  /* a loop to a body absent at the start */
  assert_int_equal(grab->type, HG_JOINT_PRISMATIC);
  assert_vec_near(grab->axis, x, 3, TOL);
  assert_string_equal(grab->marker[0], "probe_tip");
  /* close and open actions */
  assert_int_equal(s->nevent, 3);
  assert_int_equal(s->event[0].action[0].type, HG_ACTION_CLOSE_LOOP);
  assert_string_equal(s->event[0].action[0].loop, "weld");
  assert_int_equal(s->event[0].action[1].type, HG_ACTION_OPEN_LOOP);
  assert_string_equal(s->event[0].action[1].loop, "pin_c");
  assert_int_equal(s->event[2].action[0].type, HG_ACTION_OPEN_LOOP);
  assert_string_equal(s->event[2].action[0].loop, "dock_coupler_tip_plate_ball");
  /* an action's copy owns its loop name */
  hg_action a;
  assert_int_equal(hg_action_copy(&a, &s->event[0].action[0]), 0);
  assert_ptr_not_equal(a.loop, s->event[0].action[0].loop);
  assert_string_equal(a.loop, "weld");
  hg_action_free(&a);
  assert_null(a.loop);
  hg_scene_free(s);
}

/* overrides reach a loop's numbers by its name (Monte Carlo campaigns) */
static void loops_override(void **state) {
  (void)state;
  hg_error err;
  double nominal;
  const hg_scene_override ov[] = {
      {"loops.gears.ratio", 3.5}, {"loops.gears.offset", -0.25}, {"loops.weld.assembly.1", 0.5}};
  assert_int_equal(hg_scene_value("data/scenes/loops.yaml", "loops.gears.ratio", &nominal, &err),
                   0);
  assert_near(nominal, -2, 0);
  hg_scene *s = hg_scene_load_overrides("data/scenes/loops.yaml", ov, 3, &err);
  if (!s) fail_msg("%s", err.msg);
  assert_near(loop_named(s, "gears")->ratio, 3.5, 0);
  assert_near(loop_named(s, "gears")->offset, -0.25, 0);
  assert_near(loop_named(s, "weld")->tol[1], 0.5, 0);
  hg_scene_free(s);
  /* and the loop's checks apply to the replaced value */
  const hg_scene_override neg = {"loops.weld.assembly.0", -1};
  assert_null(hg_scene_load_overrides("data/scenes/loops.yaml", &neg, 1, &err));
  assert_non_null(strstr(err.msg, "'assembly' ([m, rad]) must be positive, got -1"));
}

static void missing_file(void **state) {
  hg_error err;
  assert_null(hg_scene_load("data/scenes/no_such_scene.yaml", &err));
  assert_non_null(strstr(err.msg, "data/scenes/no_such_scene.yaml: cannot open"));
  assert_null(hg_scene_load("data/scenes/no_such_scene.yaml", NULL));
  hg_scene_free(NULL);
}

/* ---- control in the loop (data/scenes/control.yaml) ---- */

static const hg_actuator_spec *actuator_named(const hg_scene *s, const char *name) {
  for (int k = 0; k < s->nactuator; k++)
    if (strcmp(s->actuator[k].name, name) == 0) return &s->actuator[k];
  fail_msg("no actuator '%s'", name);
  return NULL;
}

static const hg_sensor_spec *sensor_named(const hg_scene *s, const char *name) {
  for (int k = 0; k < s->nsensor; k++)
    if (strcmp(s->sensor[k].name, name) == 0) return &s->sensor[k];
  fail_msg("no sensor '%s'", name);
  return NULL;
}

static const hg_controller_spec *controller_named(const hg_scene *s, const char *name) {
  for (int k = 0; k < s->ncontroller; k++)
    if (strcmp(s->controller[k].name, name) == 0) return &s->controller[k];
  fail_msg("no controller '%s'", name);
  return NULL;
}

static const hg_param_spec *param_named(const hg_controller_spec *c, const char *name) {
  for (int k = 0; k < c->nparam; k++)
    if (strcmp(c->param[k].name, name) == 0) return &c->param[k];
  fail_msg("no parameter '%s' in controller '%s'", name, c->name);
  return NULL;
}

static hg_scene *control_scene(void) {
  hg_error err;
  hg_scene *s = hg_scene_load("data/scenes/control.yaml", &err);
  if (!s) fail_msg("%s", err.msg);
  return s;
}

/* motors, servos, thrusters and the tank, every key read back */
static void control_actuators(void **state) {
  (void)state;
  hg_scene *s = control_scene();
  const double zero3[3] = {0, 0, 0};
  assert_int_equal(s->nactuator, 7);
  assert_int_equal(s->noise_seed, 7);
  const hg_actuator_spec *a = actuator_named(s, "m1");
  assert_int_equal(a->type, HG_ACT_MOTOR);
  assert_string_equal(a->joint, "shoulder");
  assert_int_equal(a->dof, 0);
  assert_near(a->effort, 50, 0);
  assert_near(a->rate_limit, 500, 0);
  assert_near(a->gear, 100, 0);
  assert_near(a->rotor_inertia, 1.2e-5, 0);
  assert_near(a->viscous, 0.1, 0);
  assert_near(a->coulomb, 0.3, 0);
  assert_near(a->stiction_velocity, 2e-3, 0);
  assert_near(a->no_load_speed, 3, 0);
  assert_vec_near(a->misalignment, (double[]){0, 0, 0.01}, 3, 0);
  assert_int_equal(a->src.line, 30);
  /* the defaults */
  a = actuator_named(s, "m2");
  assert_string_equal(a->joint, "wrist");
  assert_int_equal(a->dof, 2);
  assert_true(isinf(a->effort) && isinf(a->rate_limit) && isinf(a->no_load_speed));
  assert_near(a->gear, 1, 0);
  assert_near(a->rotor_inertia, 0, 0);
  assert_near(a->stiction_velocity, 1e-3, 0);
  /* servo */
  a = actuator_named(s, "s1");
  assert_int_equal(a->type, HG_ACT_SERVO);
  assert_string_equal(a->joint, "elbow");
  assert_near(a->kp, 200, 0);
  assert_near(a->kd, 20, 0);
  assert_near(a->ki, 5, 0);
  assert_near(a->i_limit, 10, 0);
  assert_near(a->rate, 1000, 0);
  assert_int_equal(a->velocity_loop, 1);
  assert_near(a->effort, 40, 0);
  assert_near(a->gear, 50, 0);
  assert_int_equal(a->has_profile, 1);
  assert_int_equal(a->profile.kind, HG_PROFILE_MOVE);
  assert_near(a->profile.target[0], 1, 0);
  assert_near(a->profile.duration, 5, 0);
  /* thrusters: on a body (direction normalized, min_on from min_impulse) and at a marker */
  a = actuator_named(s, "t1");
  assert_int_equal(a->type, HG_ACT_THRUSTER);
  assert_string_equal(a->body, "bus");
  assert_null(a->marker);
  assert_vec_near(a->position, (double[]){1, 0, 0}, 3, 0);
  assert_vec_near(a->direction, (double[]){0, 1, 0}, 3, 0);
  assert_near(a->thrust, 10, 0);
  assert_int_equal(a->proportional, 1);
  assert_near(a->min_on, 0.02, TOL);
  assert_near(a->max_on, 60, 0);
  assert_near(a->rise, 0.005, 0);
  assert_near(a->fall, 0.006, 0);
  assert_near(a->isp, 220, 0);
  assert_string_equal(a->tank, "main");
  assert_vec_near(a->misalignment, (double[]){0.001, 0, 0}, 3, 0);
  a = actuator_named(s, "t2");
  assert_string_equal(a->marker, "jet");
  assert_string_equal(a->body, "bus");
  assert_vec_near(a->position, (double[]){-1, 0, 0}, 3, 1e-15);
  assert_vec_near(a->direction, (double[]){-1, 0, 0}, 3, 1e-15); /* +z pitched by -90 deg */
  assert_near(a->min_on, 0.02, 0);
  assert_true(isinf(a->max_on));
  assert_int_equal(a->proportional, 0);
  assert_null(a->tank);
  assert_vec_near(a->misalignment, zero3, 3, 0);
  /* the tank */
  assert_int_equal(s->ntank, 1);
  assert_string_equal(s->tank[0].name, "main");
  assert_string_equal(s->tank[0].body, "bus");
  assert_near(s->tank[0].propellant, 20, 0);
  assert_vec_near(s->tank[0].position, (double[]){0, 0, 0.1}, 3, 0);
  assert_near(s->tank[0].radius, 0.25, 0);
  hg_scene_free(s);
}

/* a wheel is a body and a revolute joint of its name, with its inertia, and starts at its speed
 * unless 'initial' names its joint; motors' rotors join their joints' armature */
static void control_wheels(void **state) {
  (void)state;
  hg_error err;
  hg_scene *s = control_scene();
  const hg_actuator_spec *a = actuator_named(s, "rw1");
  assert_int_equal(a->type, HG_ACT_WHEEL);
  assert_string_equal(a->body, "bus");
  assert_string_equal(a->joint, "rw1");
  assert_vec_near(a->axis, (double[]){1, 0, 0}, 3, 0);
  assert_vec_near(a->position, (double[]){0.2, 0, 0}, 3, 0);
  assert_near(a->inertia, 0.05, 0);
  assert_near(a->transverse_inertia, 0.03, 0);
  assert_near(a->mass, 1.2, 0);
  assert_near(a->max_torque, 0.2, 0);
  assert_near(a->max_speed, 600, 0);
  assert_near(a->viscous, 1e-5, 0);
  assert_near(a->coulomb, 1e-4, 0);
  assert_near(a->speed, 10, 0);
  a = actuator_named(s, "rw2");
  assert_near(a->transverse_inertia, 0.025, 0); /* default: inertia / 2 */
  assert_true(isinf(a->max_torque) && isinf(a->max_speed));
  hg_model *m = hg_builder_compile(s->builder, &err);
  if (!m) fail_msg("%s", err.msg);
  int i = hg_model_body(m, "rw1");
  assert_true(i > 0);
  assert_int_equal(hg_model_joint(m, "rw1"), i);
  assert_int_equal(m->parent[i], hg_model_body(m, "bus"));
  assert_int_equal(m->jnt[i].type, HG_JOINT_REVOLUTE);
  assert_vec_near(m->jnt[i].axis, (double[]){1, 0, 0}, 3, TOL);
  const hg_body_spec *b = body(s, "rw1");
  assert_vec_near(b->offset.p, (double[]){0.2, 0, 0}, 3, 0);
  assert_near(b->inertia.m, 1.2, 0);
  assert_vec_near(b->inertia.h, (double[]){0, 0, 0}, 3, 0);
  assert_vec_near(b->inertia.I, (double[]){0.05, 0.03, 0.03, 0, 0, 0}, 6, TOL);
  b = body(s, "rw2");
  assert_vec_near(b->inertia.I, (double[]){0.025, 0.05, 0.025, 0, 0, 0}, 6, TOL);
  /* armature: gear^2 rotor_inertia on the motor's and the servo's DoF */
  assert_near(m->armature[m->v_adr[hg_model_joint(m, "shoulder")]], 100 * 100 * 1.2e-5, 1e-15);
  assert_near(m->armature[m->v_adr[hg_model_joint(m, "elbow")]], 50 * 50 * 1e-5, 1e-15);
  assert_near(m->armature[m->v_adr[hg_model_joint(m, "wrist")] + 2], 0, 0);
  hg_model_free(m);
  /* speeds: rw1's joins the initial state, rw2's is the one 'initial' gives */
  int seen = 0;
  for (int k = 0; k < s->njinit; k++) {
    const hg_joint_init_spec *ji = &s->jinit[k];
    if (strcmp(ji->joint, "rw1") == 0) {
      assert_true(ji->has_v && !ji->has_q);
      assert_near(ji->v[0], 10, 0);
      seen |= 1;
    }
    if (strcmp(ji->joint, "rw2") == 0) {
      assert_near(ji->v[0], 5, 0);
      seen |= 2;
    }
  }
  assert_int_equal(seen, 3);
  assert_int_equal(s->njinit, 2);
  hg_scene_free(s);
}

/* every sensor type and key */
static void control_sensors(void **state) {
  (void)state;
  hg_scene *s = control_scene();
  assert_int_equal(s->nsensor, 13);
  const hg_sensor_spec *e = sensor_named(s, "enc1");
  assert_int_equal(e->type, HG_SENSOR_ENCODER);
  assert_string_equal(e->joint, "shoulder");
  assert_int_equal(e->dof, 0);
  assert_near(e->rate, 100, 0);
  assert_near(e->resolution, 1e-4, 0);
  assert_near(e->noise[0], 1e-5, 0);
  assert_near(e->bias[0], 0.001, 0);
  assert_int_equal(sensor_named(s, "js1")->type, HG_SENSOR_JOINT_STATE);
  e = sensor_named(s, "gyro");
  assert_int_equal(e->type, HG_SENSOR_GYRO);
  assert_string_equal(e->body, "bus");
  assert_null(e->marker);
  assert_near(e->density, 1e-6, 0);
  assert_near(e->random_walk, 1e-8, 0);
  assert_vec_near(e->bias, (double[]){1e-4, 2e-4, 3e-4}, 3, 0);
  assert_near(e->bias_instability, 1e-6, 0);
  assert_near(e->correlation_time, 30, 0);
  assert_vec_near(e->scale_factor, (double[]){1e-4, 0, 0}, 3, 0);
  assert_vec_near(e->misalignment, (double[]){0, 1e-3, 0}, 3, 0);
  assert_near(e->range, 5, 0);
  assert_near(e->lsb, 1e-6, 0);
  e = sensor_named(s, "acc");
  assert_int_equal(e->type, HG_SENSOR_ACCELEROMETER);
  assert_string_equal(e->marker, "imu");
  assert_null(e->body);
  assert_near(e->rate, 200, 0);
  e = sensor_named(s, "st");
  assert_int_equal(e->type, HG_SENSOR_STAR_TRACKER);
  assert_vec_near(e->noise, (double[]){1e-5, 2e-5, 5e-5}, 3, 0);
  assert_vec_near(e->bias, (double[]){0, 0, 1e-6}, 3, 0);
  assert_near(e->dropout, 0.01, 0);
  assert_vec_near(sensor_named(s, "st2")->noise, (double[]){3e-5, 3e-5, 3e-5}, 3, 0);
  e = sensor_named(s, "sun");
  assert_int_equal(e->type, HG_SENSOR_SUN);
  assert_vec_near(e->sun, (double[]){0, 1, 0}, 3, 0);
  assert_near(e->noise[0], 1e-3, 0);
  assert_near(e->fov, 1, 0);
  e = sensor_named(s, "earth");
  assert_int_equal(e->type, HG_SENSOR_EARTH);
  assert_string_equal(e->marker, "nadir");
  assert_near(e->noise[0], 2e-3, 0);
  assert_near(e->fov, 0.5, 0);
  e = sensor_named(s, "ft");
  assert_int_equal(e->type, HG_SENSOR_FORCE_TORQUE);
  assert_string_equal(e->joint, "wrist");
  assert_vec_near(e->noise, (double[]){0.1, 0.01}, 2, 0);
  assert_vec_near(e->bias, (double[]){1, 2, 3, 4, 5, 6}, 6, 0);
  e = sensor_named(s, "ft2");
  assert_string_equal(e->marker, "imu");
  assert_null(e->joint);
  assert_int_equal(sensor_named(s, "truth")->type, HG_SENSOR_POSE);
  assert_int_equal(sensor_named(s, "rates")->type, HG_SENSOR_TWIST);
  assert_string_equal(sensor_named(s, "rates")->marker, "imu");
  hg_scene_free(s);
}

/* every controller type, its inputs, outputs and params; the control actions of an event */
static void control_controllers(void **state) {
  (void)state;
  hg_scene *s = control_scene();
  assert_int_equal(s->ncontroller, 6);
  const hg_controller_spec *c = controller_named(s, "adcs");
  assert_int_equal(c->type, HG_CTL_ATTITUDE_PD);
  assert_near(c->rate, 10, 0);
  assert_int_equal(c->enabled, 0);
  assert_int_equal(c->ninput, 2);
  assert_string_equal(c->input[0], "st");
  assert_string_equal(c->input[1], "gyro");
  assert_int_equal(c->noutput, 2);
  assert_string_equal(c->output[1], "rw2");
  assert_int_equal(c->nparam, 5);
  assert_int_equal(param_named(c, "target")->n, 4);
  assert_vec_near(param_named(c, "target")->value, (double[]){1, 0, 0, 0}, 4, 0);
  assert_near(param_named(c, "max_torque")->value[0], 0.1, 0);
  c = controller_named(s, "adcs2");
  assert_int_equal(c->enabled, 1);
  assert_string_equal(c->output[0], "jets");
  c = controller_named(s, "jets");
  assert_int_equal(c->type, HG_CTL_THRUSTER_LOGIC);
  assert_near(param_named(c, "on")->value[0], 0.05, 0);
  assert_near(param_named(c, "pwm")->value[0], 1, 0);
  c = controller_named(s, "arm");
  assert_int_equal(c->type, HG_CTL_JOINT_PD);
  assert_int_equal(c->has_profile, 1);
  assert_near(c->profile.target[0], 0.5, 0);
  assert_near(c->profile.duration, 4, 0);
  c = controller_named(s, "mine");
  assert_int_equal(c->type, HG_CTL_LIBRARY);
  assert_string_equal(c->library, "data/scenes/ctl/libadcs.so");
  assert_string_equal(c->symbol, "adcs_step");
  assert_int_equal(param_named(c, "gains")->n, 3);
  assert_int_equal(param_named(c, "mode")->n, 0);
  assert_string_equal(param_named(c, "mode")->text, "fine");
  assert_int_equal(param_named(c, "mode")->src.line, 56);
  c = controller_named(s, "ext");
  assert_int_equal(c->type, HG_CTL_EXTERNAL);
  assert_string_equal(c->command, "python3 ctl.py");
  assert_near(c->timeout, 2.5, 0);
  assert_near(c->rate, 20, 0);
  assert_near(controller_named(s, "jets")->timeout, 10, 0); /* the default */
  /* the event's actions, and their copies */
  assert_int_equal(s->nevent, 1);
  const hg_event_spec *e = &s->event[0];
  assert_int_equal(e->naction, 6);
  assert_int_equal(e->action[0].type, HG_ACTION_ACTUATE);
  assert_string_equal(e->action[0].device, "m1");
  assert_int_equal(e->action[0].nvalue, 1);
  assert_near(e->action[0].values[0], 2.5, 0);
  assert_int_equal(e->action[1].nvalue, 2);
  assert_vec_near(e->action[1].values, (double[]){0.5, 0.1}, 2, 0);
  assert_int_equal(e->action[2].type, HG_ACTION_SET_GAIN);
  assert_string_equal(e->action[2].device, "adcs");
  assert_string_equal(e->action[2].param, "kp");
  assert_near(e->action[2].values[0], 0.7, 0);
  assert_int_equal(e->action[3].nvalue, 3);
  assert_int_equal(e->action[4].type, HG_ACTION_CONTROLLER);
  assert_string_equal(e->action[4].device, "adcs");
  assert_int_equal(e->action[4].on, 1);
  assert_int_equal(e->action[5].on, 0);
  for (int k = 0; k < e->naction; k++) {
    hg_action copy;
    assert_int_equal(hg_action_copy(&copy, &e->action[k]), 0);
    assert_int_equal(copy.type, e->action[k].type);
    assert_string_equal(copy.device, e->action[k].device);
    assert_true(copy.device != e->action[k].device);
    assert_int_equal(copy.nvalue, e->action[k].nvalue);
    if (copy.nvalue) {
      assert_true(copy.values != e->action[k].values);
      assert_vec_near(copy.values, e->action[k].values, copy.nvalue, 0);
    }
    if (e->action[k].param) assert_string_equal(copy.param, e->action[k].param);
    hg_action_free(&copy);
    assert_null(copy.device);
  }
  hg_scene_free(s);
}

/* ---- malformed scenes ---- */

/* file (in data/scenes_bad, without .yaml), line, column (0: not checked), part of the message */
static const struct bad_scene {
  const char *file;
  int line, column;
  const char *expect;
} bad[] = {
    {"contact_impulsive_no_restitution", 6, 70, "'impact: impulsive' needs a 'restitution' in [0, 1]"},
    {"contact_one_side", 5, 30, "expected two entries for 'between' (two bodies or body lists), got 1"},
    {"contact_restitution_alone", 6, 75, "'restitution' and 'impact_speed' go together"},
    {"contact_unknown_body", 6, 37, "unknown body 'grund' (did you mean 'ground'?)"},
    {"absurd_position", 4, 37, "'pos' = -1e308 is beyond any physical value of a scene"},
    {"absurd_time", 2, 23, "'end' = 1e300 is beyond any physical value of a scene"},
    {"far_position", 8, 17, "position 2e+13 m is beyond the 1e+13 m a scene may give"},
    {"faster_than_light", 8, 19, "speed 4e+08 m/s is beyond the 3e+08 m/s a scene may give"},
    {"long_time", 2, 23, "end time 2e+10 s is beyond the 1e+10 s a scene may give"},
    {"prismatic_far", 8, 17, "position 5e+13 m is beyond the 1e+13 m a scene may give"},
    {"too_many_rows", 7, 14, "gives 1e+10 rows, more than 1e+09: raise output.dt"},
    {"mimic_follower_mode", 6, 3, "joint 'right_joint' follows joint 'left_joint' (mimic) and takes"},
    {"add_bad_pose", 19, 51, "expected a list of 3 numbers for 'pos', got 2"},
    {"add_marker_on_added", 19, 41,
     "marker 'probe_tip' is on body 'probe', which this add brings"},
    {"add_not_root", 19, 23,
     "body 'antenna' comes with 'probe' (its parent 'probe' is absent at the start too)"},
    {"add_pose_not_free", 24, 30,
     "'twist' places a body on a free joint, but 'panel' hangs on a revolute joint"},
    {"add_present_body", 19, 23, "body 'bus' is present at the start: only a body with"},
    {"add_twist_count", 19, 37, "expected a list of 6 numbers for 'twist', got 5"},
    {"add_unknown_body", 19, 23, "unknown body 'prob' (did you mean 'probe'?)"},
    {"add_unknown_marker", 19, 41, "unknown marker 'bey' (did you mean 'bay'?)"},
    {"alias_loop", 2, 9, "expected a mapping (key: value) for body, got a list"},
    {"alias_unknown", 3, 5, "found undefined alias"},
    {"all_absent", 4, 14, "every body is absent at the start ('present: false')"},
    {"attach_same_body", 11, 54, "markers 'tip' and 'root' are both on body 'arm'"},
    {"axis_on_free", 4, 25, "'axis' does not apply to a free joint"},
    {"bad_bool", 6, 17, "expected true or false for 'plots', got 'maybe'"},
    {"bad_number", 5, 21, "expected a number for 'mass', got 'heavy'"},
    {"bad_utf8", 3, 14, "invalid text"},
    {"bodies_not_list", 3, 3, "expected a list for 'bodies', got a mapping"},
    {"body_named_world", 3, 11, "'world' is the ground body"},
    {"body_no_name", 6, 5, "missing key 'name' in body"},
    {"capture_port_types", 12, 22, "not docking ports of one type"},
    {"cycle", 3, 11, "cycle of parents"},
    {"density_without_mesh", 5, 24, "'density' does not apply to an inertia given by 'mass'"},
    {"drag_no_atmosphere", 10, 5, "a drag force needs an 'atmosphere'"},
    {"duplicate_body", 6, 11, "duplicate body name 'arm' (first at line 3)"},
    {"duplicate_force", 11, 5, "duplicate force name 'thrust' (first at line 10)"},
    {"duplicate_joint_name", 8, 35, "duplicate joint name 'hinge' (bodies 'a' and 'b')"},
    {"duplicate_key", 6, 5, "key 'joint' given twice in body (first at line 4)"},
    {"duplicate_marker", 8, 16, "duplicate marker name 'tip' (first at line 7)"},
    {"empty", 1, 1, "the file is empty"},
    {"event_action_two_keys", 12, 9, "an action is a mapping with one key"},
    {"event_at_and_when", 11, 5, "give 'at' (a time) or 'when' (a condition), not both"},
    {"event_bad_direction", 10, 47,
     "unknown direction 'up' (expected one of: either, rising, falling)"},
    {"event_bad_dof", 10, 29, "'dof' must be in [0, 0] for joint 'arm', got 1"},
    {"event_before_start", 11, 9, "event time 0.5 is before the start time 1"},
    {"event_empty_do", 11, 9, "'do' lists no action"},
    {"event_negative_speed", 10, 33, "a speed never crosses a negative value"},
    {"event_no_trigger", 10, 5, "an event needs 'at' (a time) or 'when' (a condition)"},
    {"event_two_conditions", 10, 35, "give 'distance' or 'speed', not both"},
    {"event_unknown_action", 11, 11, "unknown action 'detatch' (did you mean 'detach'?)"},
    {"event_unknown_force", 13, 19,
     "unknown force element 'chute_sprin' (did you mean 'chute_spring'?)"},
    {"force_key_not_applicable", 11, 41, "'mu' does not apply to a drag force"},
    {"force_missing_key", 10, 5, "missing key 'mu' in central_gravity force"},
    {"force_unknown_marker", 10, 35, "unknown marker 'roott' (did you mean 'root'?)"},
    {"force_unknown_type", 10, 12, "unknown force type 'sprin' (did you mean 'spring'?)"},
    {"geometry_bad_rgba", 7, 44, "every entry of 'rgba' must be in [0, 1], got 2"},
    {"geometry_mesh_extension", 7, 28, "a mesh file must be .obj or .stl, got 'ship.ply'"},
    {"geometry_missing_length", 7, 9, "missing key 'length' in cylinder geometry"},
    {"geometry_negative_radius", 7, 32, "'radius' must be positive, got -0.1"},
    {"geometry_unknown_type", 7, 16, "unknown geometry type 'sphre' (did you mean 'sphere'?)"},
    {"geometry_size_and_radius", 7, 41, "give a capsule's 'size' or its 'radius', not both"},
    {"geometry_size_count", 7, 30, "expected a list of 1 number for 'size', got 3"},
    {"geometry_wrong_key", 7, 50, "'height' does not apply to a cylinder"},
    {"gravity_wrong_type", 6, 10, "expected a list of 3 numbers for 'gravity', got '-9.81'"},
    {"impulse_marker_body", 14, 41, "marker 'tip' is on body 'arm', not 'hand'"},
    {"inertia_count", 5, 51, "for 'inertia', got 4"},
    {"initial_absent_body", 19, 5,
     "body 'probe' is not present at the start ('present: false'): its add action places it"},
    {"initial_absent_free_joint", 19, 5,
     "joint 'probe' is the free joint of body 'probe', which is not present at the start"},
    {"initial_body_not_free", 8, 5, "body 'arm' hangs on a revolute joint"},
    {"initial_unknown_joint", 8, 5, "unknown joint 'elbo' (did you mean 'elbow'?)"},
    {"initial_wrong_count", 8, 14, "expected a list of 1 number for 'q', got 2"},
    {"integrator_atol_key", 7, 23,
     "unknown key 'angular_velocty' in 'atol' (did you mean 'angular_velocity'?)"},
    {"integrator_atol_negative", 7, 40, "'linear_velocity' must be positive, got -2"},
    {"integrator_bad_rtol", 6, 35, "'rtol' must be positive"},
    {"integrator_recentre", 6, 24, "'recentre' must be in (0, 2.5] rad, got 3"},
    {"integrator_unknown_method", 6, 22,
     "unknown integration method 'cvode-adam' (did you mean 'cvode-adams'?)"},
    {"joint_spring_rest", 7, 59, "expected a list of 4 numbers for 'rest', got 3"},
    {"limits_half", 4, 54, "joint limits need both 'lower' and 'upper'"},
    {"limits_on_free", 6, 7, "'limits' does not apply to a free joint"},
    {"limits_reversed", 4, 72, "joint limits: 'upper' (-1) is below 'lower' (1)"},
    {"marker_unknown_body", 7, 23, "unknown body 'armm' (did you mean 'arm'?)"},
    {"coupling_between", 15, 61, "'between' does not apply to a coupling (it joins 'joints')"},
    {"coupling_not_one_dof", 15, 52,
     "joint 'rocker' is a spherical joint: a coupling joins two 1-DoF joints (revolute, "
     "prismatic or helical)"},
    {"coupling_same_joint", 15, 52, "a coupling needs two different joints, got 'crank_j' twice"},
    {"coupling_unknown_joint", 15, 43, "unknown joint 'crank_k' (did you mean 'crank_j'?)"},
    {"event_unknown_loop", 18, 18, "unknown loop 'pn' (did you mean 'pin'?)"},
    {"loop_axis_on_spherical", 15, 69, "'axis' does not apply to a spherical joint"},
    {"loop_between_three", 15, 42, "expected two markers for 'between', got 3"},
    {"loop_duplicate_name", 16, 12, "duplicate loop name 'pin' (first at line 15)"},
    {"loop_free", 15, 23, "a free loop constrains nothing: give the joint the loop closes"},
    {"loop_joints_on_joint_loop", 15, 67,
     "'joints' does not apply to a joint loop (a coupling's key)"},
    {"loop_name_of_body", 15, 12, "loop name 'rocker' is taken by a body"},
    {"loop_name_of_joint", 15, 12, "loop name 'crank_j' is taken by a joint"},
    {"loop_same_body", 15, 54,
     "markers 'crank_tip' and 'crank_mid' are both on body 'crank': a loop joins two bodies"},
    {"loop_unknown_marker", 15, 54, "unknown marker 'rocker_tp' (did you mean 'rocker_tip'?)"},
    {"loop_unknown_type", 15, 23, "unknown loop type 'revolut' (did you mean 'revolute'?)"},
    {"loop_zero_axis", 15, 73, "loop 'pin': axis is zero or not finite"},
    {"massless_leaf", 8, 35, "articulated inertia is singular at joint 'wrist'"},
    {"mesh_and_com", 5, 62, "'com' does not apply to a mesh inertia"},
    {"mesh_missing", 5, 21, "cannot open 'nowhere.obj'"},
    {"mesh_no_density", 5, 14, "a mesh inertia needs 'density' (or 'mass')"},
    {"mesh_open", 5, 21, "inertia of body 'block': mesh is not closed"},
    {"mode_absent_joint", 18, 3,
     "body 'antenna' is not present at the start ('present: false'): give its joint a mode"},
    {"mode_fixed_joint", 10, 8, "joint 'cap' is fixed: it has no mode"},
    {"mode_unknown", 7, 8, "unknown joint mode 'lockd' (did you mean 'locked'?)"},
    {"name_is_list", 3, 11, "expected a name for 'name', got a list"},
    {"negative_mass", 5, 21, "inertia of body 'arm': mass must be finite and >= 0, got -1"},
    {"no_bodies", 2, 1, "a scene needs at least one body"},
    {"number_nan", 5, 21, "expected a number for 'mass', got '.nan'"},
    {"number_overflow", 5, 21, "'mass' is out of range (1e999)"},
    {"output_same_pair", 7, 11, "a pair needs two different bodies, got 'arm' twice"},
    {"present_child_of_absent", 18, 13,
     "parent 'probe' is not present at the start ('present: false'): only bodies absent"},
    {"present_singular", 3, 11,
     "with only the bodies present at the start: articulated inertia is singular at joint 'arm'"},
    {"profile_bad_duration", 8, 50, "'duration' must be positive, got 0"},
    {"profile_not_prescribed", 9, 5, "a profile needs mode 'prescribed', not 'locked'"},
    {"profile_wrong_key", 8, 31, "'amplitude' does not apply to a velocity profile"},
    {"quat_and_rpy", 4, 66, "give one of 'quat', 'rpy' and 'rpy_deg', not both 'quat' and 'rpy'"},
    {"root_list", 2, 1, "expected a mapping (key: value) for the scene, got a list"},
    {"short_vector", 4, 51, "expected a list of 3 numbers for 'pos', got 2"},
    {"spline_count_mismatch", 8, 56, "'samples' has 2 entries but 'times' has 3"},
    {"spline_not_increasing", 8, 14,
     "spline profile: spline times are not finite and strictly increasing"},
    {"syntax_error", 4, 0, "YAML syntax error: did not find expected ',' or '}'"},
    {"tab_indent", 3, 1, "(a tab: YAML indents with spaces only)"},
    {"thrust_times", 10, 65, "'t_off' (1) must come after 't_on' (2)"},
    {"time_end_before_start", 6, 23, "'end' (2) must come after 'start' (5)"},
    {"triangle_inequality", 5, 51, "violate the triangle inequality"},
    {"two_documents", 7, 1, "a scene file holds one YAML document, found a second"},
    {"undock_unknown_joint", 11, 27, "unknown joint 'dock_tip_root'"},
    {"universal_parallel", 4, 54, "joint of body 'arm': universal joint axes are parallel"},
    {"unknown_body_key", 5, 5, "unknown key 'inertai' in body (did you mean 'inertia'?)"},
    {"unknown_inertia_key", 5, 15,
     "unknown key 'masss' in inertia of body 'arm' (did you mean 'mass'?)"},
    {"unknown_joint_type", 4, 19, "unknown joint type 'revolut' (did you mean 'revolute'?)"},
    {"unknown_parent", 7, 13, "unknown parent body 'armm' (did you mean 'arm'?)"},
    {"unknown_top_key", 2, 1, "unknown key 'bodys' in the scene (did you mean 'bodies'?)"},
    {"unquoted_colon", 2, 19,
     "mapping values are not allowed in this context (quote the value: a plain value cannot "
     "hold ': ', write key: \"a: b\")"},
    {"unquoted_colon_flow", 3, 15, "(quote the value: a plain value cannot hold ': '"},
    {"urdf_error", 3, 12,
     "in URDF include: data/scenes_bad/../urdf_bad/negative_mass.urdf:6: mass must be"},
    {"urdf_missing", 3, 12, "cannot open 'missing.urdf'"},
    {"zero_axis", 4, 35, "joint of body 'arm': axis is zero or not finite"},
    {"zero_quat", 4, 52, "a quaternion (w, x, y, z) must not be zero"},
    {"ctl_actuate_unknown", 21, 29,
     "unknown actuator 'm2' (did you mean 'm1'?)"},
    {"ctl_attitude_inputs", 22, 55,
     "an attitude_pd controller's inputs are [attitude, rate]: a star_tracke"},
    {"ctl_controller_self", 17, 70,
     "controller 'ext' cannot name itself in its outputs"},
    {"ctl_duplicate_name", 19, 12,
     "duplicate name 'm1': the actuator at line 17 has it (actuators, tanks,"},
    {"ctl_effort_negative", 17, 54,
     "'effort' must be positive, got -1"},
    {"ctl_external_no_command", 17, 5,
     "missing key 'command' in external controller"},
    {"ctl_ft_noise", 17, 68,
     "expected a list of 1 to 2 numbers for 'noise', got 3"},
    {"ctl_joint_pd_mismatch", 21, 53,
     "input 'enc' measures joint 'wrist' (dof 0), but output 'm1' drives joi"},
    {"ctl_key_not_for_type", 17, 46,
     "'thrust' does not apply to a motor"},
    {"ctl_library_no_symbol", 17, 5,
     "missing key 'symbol' in library controller"},
    {"ctl_logic_outputs", 20, 75,
     "a thruster_logic controller's outputs are thrusters"},
    {"ctl_motor_dof", 17, 51,
     "'dof' must be in [0, 0] for joint 'shoulder', got 1"},
    {"ctl_motor_unknown_joint", 17, 36,
     "unknown joint 'sholder' (did you mean 'shoulder'?)"},
    {"ctl_noise_seed", 16, 13,
     "expected a non-negative integer for 'noise_seed', got '-3'"},
    {"ctl_param_name_list", 21, 83,
     "expected a name for a parameter, got a list"},
    {"ctl_param_twice", 21, 90,
     "parameter 'kp' given twice (first at line 21)"},
    {"ctl_param_unknown", 21, 83,
     "unknown joint_pd parameter 'kpp' (did you mean 'kp'?)"},
    {"ctl_rate_zero", 17, 55,
     "'rate' must be positive, got 0"},
    {"ctl_sensor_body_and_marker", 17, 41,
     "give a sensor a 'body' or a 'marker', not both"},
    {"ctl_servo_spherical", 17, 36,
     "a servo drives a 1-DoF joint, and 'wrist' is a spherical joint (3 DoF)"},
    {"ctl_set_gain_param", 25, 44,
     "unknown joint_pd parameter 'kd_' (did you mean 'kd'?)"},
    {"ctl_star_tracker_noise", 17, 64,
     "a star_tracker sensor's 'noise' is 3 numbers (x, y, z, rad) or 1 (ever"},
    {"ctl_tank_unknown_body", 17, 24,
     "unknown body 'buss' (did you mean 'bus'?)"},
    {"ctl_thruster_both", 17, 45,
     "give a thruster a 'marker' (its origin and +z) or 'body' with 'directi"},
    {"ctl_thruster_min_both", 17, 89,
     "give 'min_on' (s) or 'min_impulse' (N s), not both"},
    {"ctl_thruster_min_on", 17, 84,
     "the shortest pulse (2 s) is longer than 'max_on' (1 s)"},
    {"ctl_thruster_no_direction", 17, 5,
     "missing key 'direction' in thruster on a body"},
    {"ctl_thruster_unknown_tank", 19, 82,
     "unknown tank 'mian' (did you mean 'main'?)"},
    {"ctl_unknown_input", 22, 60,
     "unknown input (a sensor or a controller) 'gyr' (did you mean 'gyro'?)"},
    {"ctl_unknown_key", 17, 46,
     "unknown key 'gera' in actuator (did you mean 'gear'?)"},
    {"ctl_wheel_gear", 17, 91,
     "'gear' does not apply to a reaction_wheel"},
    {"ctl_wheel_name_body", 17, 12,
     "wheel name 'upper' is taken by a body (a wheel is a body and a joint o"},
    {"ctl_wheel_name_joint", 17, 12,
     "wheel name 'shoulder' is taken by a joint (a wheel is a body and a joi"},
    {"ctl_wheel_transverse", 17, 76,
     "wheel 'rw1': principal moments 0.01 0.01 0.05 violate the triangle ine"},
    {"ctl_wheel_unknown_body", 17, 45,
     "unknown body 'buss' (did you mean 'bus'?)"},
    {"ctl_wheel_zero_axis", 17, 56,
     "'axis' must be a nonzero vector"},
};
#define NBAD ((int)(sizeof bad / sizeof bad[0]))

/* one malformed scene: NULL, "path:line:column: " first, the expected words after it */
static void bad_scene(void **state) {
  const struct bad_scene *b = *state;
  char path[256], prefix[300], first[256];
  hg_error err;
  FILE *f;
  snprintf(path, sizeof path, "data/scenes_bad/%s.yaml", b->file);
  f = fopen(path, "rb");
  if (!f) fail_msg("cannot open %s", path);
  if (!fgets(first, sizeof first, f) || first[0] != '#')
    fail_msg("%s does not start with a comment", path);
  fclose(f);
  memset(err.msg, 0, sizeof err.msg);
  hg_scene *s = hg_scene_load(path, &err);
  if (s) {
    hg_scene_free(s);
    fail_msg("%s loaded, but should have failed with '%s'", path, b->expect);
  }
  if (b->column)
    snprintf(prefix, sizeof prefix, "%s:%d:%d: ", path, b->line, b->column);
  else
    snprintf(prefix, sizeof prefix, "%s:%d:", path, b->line);
  if (strncmp(err.msg, prefix, strlen(prefix)) != 0)
    fail_msg("message '%s' does not start with '%s'", err.msg, prefix);
  if (!strstr(err.msg + strlen(prefix), b->expect))
    fail_msg("message '%s' does not say '%s'", err.msg, b->expect);
}

/* every file of data/scenes_bad is in the table (and so is tested) */
static void bad_scenes_all_listed(void **state) {
  DIR *dir = opendir("data/scenes_bad");
  struct dirent *e;
  int nfile = 0;
  assert_non_null(dir);
  while ((e = readdir(dir))) {
    size_t n = strlen(e->d_name);
    int found = 0;
    if (n < 6 || strcmp(e->d_name + n - 5, ".yaml") != 0) continue;
    nfile++;
    for (int k = 0; k < NBAD && !found; k++)
      found = strlen(bad[k].file) == n - 5 && strncmp(bad[k].file, e->d_name, n - 5) == 0;
    if (!found) {
      closedir(dir);
      fail_msg("data/scenes_bad/%s is not in the table of test_scene.c", e->d_name);
    }
  }
  closedir(dir);
  assert_int_equal(nfile, NBAD);
  assert_true(NBAD >= 30);
}

int main(void) {
  static const struct CMUnitTest fixed[] = {
      cmocka_unit_test(full_bodies),
      cmocka_unit_test(full_model_and_geometry),
      cmocka_unit_test(full_markers),
      cmocka_unit_test(full_forces),
      cmocka_unit_test(full_initial_and_modes),
      cmocka_unit_test(full_events),
      cmocka_unit_test(full_run_settings),
      cmocka_unit_test(minimal_defaults),
      cmocka_unit_test(partial_atol),
      cmocka_unit_test(mesh_inertia),
      cmocka_unit_test(documented_example),
      cmocka_unit_test(library_and_add),
      cmocka_unit_test(loops_read),
      cmocka_unit_test(loops_override),
      cmocka_unit_test(missing_file),
      cmocka_unit_test(control_actuators),
      cmocka_unit_test(control_wheels),
      cmocka_unit_test(control_sensors),
      cmocka_unit_test(control_controllers),
      cmocka_unit_test(bad_scenes_all_listed),
  };
  enum { NFIXED = sizeof fixed / sizeof fixed[0] };
  struct CMUnitTest tests[NFIXED + NBAD];
  memcpy(tests, fixed, sizeof fixed);
  for (int k = 0; k < NBAD; k++) {
    struct CMUnitTest t = {bad[k].file, bad_scene, NULL, NULL, (void *)&bad[k]};
    tests[NFIXED + k] = t;
  }
  return _cmocka_run_group_tests("scene", tests, NFIXED + NBAD, NULL, NULL);
}
