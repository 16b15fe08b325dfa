/* test_mjcf: the MJCF reader's paths that do not compare with MuJoCo (test_mjcf_mujoco does):
 * malformed files give file:line errors (tests/data/mjcf/bad/), hostile ones errors within the
 * reader process's limits, .xml files are told apart by their root element, a build without
 * MuJoCo says how to get it, and a scene's mjcf include brings the bodies, the joint springs and
 * dampers as force elements and the sites as markers. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "mesh.h"
#include "mjcf.h"
#include "scene.h"
#include "sim.h"
#include "sims.h"

/* each malformed file, and the message (MuJoCo's, at the line it names) */
static void bad_files(void **state) {
  static const struct {
    const char *file, *msg;
  } cases[] = {
      {"data/mjcf/bad/bad_joint_type.xml", "bad_joint_type.xml:4: XML Error: invalid keyword: 'twist'"},
      {"data/mjcf/bad/negative_size.xml", "negative_size.xml:4: Error: sizes must be positive"},
      {"data/mjcf/bad/bad_inertia.xml", "bad_inertia.xml:3: Error: inertia must satisfy A + B >= C"},
      {"data/mjcf/bad/missing_mesh.xml", "missing_mesh.xml:3: Error: could not open STL file"},
      {"data/mjcf/bad/unclosed.xml", "unclosed.xml: XML parse error"},
  };
  (void)state;
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    hg_error err;
    hg_model *m = hg_mjcf_load(cases[k].file, NULL, &err);
    assert_null(m);
    if (!hg_mjcf_available()) {
      assert_non_null(strstr(err.msg, "apt-get install libmujoco-dev"));
      continue;
    }
    if (!strstr(err.msg, cases[k].msg)) fprintf(stderr, "%s\n  want %s\n", err.msg, cases[k].msg);
    assert_non_null(strstr(err.msg, cases[k].msg));
  }
}

/* Hostile files for MuJoCo 2.2.2's compiler, which runs in the reader process: a model on which
 * it never returns (libccd's penetration search loops while the compiler steps the model; found
 * by fuzz_mjcf) and one whose stack would take 16 GB. Each is an error naming the file, within
 * the reader's limits (here a CPU time of 1 s, so the test is quick), and no reader is left
 * behind. Before the reader process the first never returned and the second allocated 16 GB in
 * hinge. */
static void hostile_files(void **state) {
  static const hg_mjcf_isolation quick = {NULL, HG_MJCF_READER_MEMORY, 1, 20,
                                           HG_MJCF_READER_OUTPUT};
  static const struct {
    const char *file, *msg;
  } cases[] = {
      {"data/mjcf/bad/hostile_ccd_hang.xml",
       "data/mjcf/bad/hostile_ccd_hang.xml: MuJoCo's MJCF compiler timed out (more than 1 s of "
       "CPU time)"},
      {"data/mjcf/bad/hostile_nstack.xml",
       "data/mjcf/bad/hostile_nstack.xml: Error: engine error: Could not allocate memory"},
  };
  (void)state;
  if (!hg_mjcf_available()) return;
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    hg_error err;
    hg_builder *b = hg_builder_new();
    assert_int_equal(
        hg_mjcf_add_isolated(b, cases[k].file, NULL, NULL, NULL, NULL, &quick, NULL, &err), -1);
    if (!strstr(err.msg, cases[k].msg)) fprintf(stderr, "%s\n  want %s\n", err.msg, cases[k].msg);
    assert_non_null(strstr(err.msg, cases[k].msg));
    hg_builder_free(b);
  }
  errno = 0;
  assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
  assert_int_equal(errno, ECHILD);
}

/* an .xml file is MJCF when its first element is <mujoco>, after declarations and comments */
static void detection(void **state) {
  (void)state;
  assert_int_equal(hg_mjcf_is_mjcf("data/mjcf/chain.xml"), 1); /* a comment first */
  assert_int_equal(hg_mjcf_is_mjcf("data/robots/fixed_links.urdf"), 0);
  assert_int_equal(hg_mjcf_is_mjcf("data/mjcf/no_such_file.xml"), 0);
}

/* the include: springs and dampers with MuJoCo's values (springref in degrees becomes radians,
 * in hinge's q = MuJoCo's qpos), bodies prefixed and hung from the cart */
static void scene_include(void **state) {
  hg_error err;
  (void)state;
  hg_scene *s = hg_scene_load("data/mjcf/scenes/arm_on_cart.yaml", &err);
  if (!hg_mjcf_available()) {
    assert_null(s);
    assert_non_null(strstr(err.msg, "libmujoco-dev"));
    return;
  }
  if (!s) fprintf(stderr, "%s\n", err.msg);
  assert_non_null(s);
  assert_int_equal(s->nforce, 3); /* j1 damping, j2 spring and damper, j3 spring and damper */
  const hg_force_spec *j2 = NULL;
  for (int k = 0; k < s->nforce; k++)
    if (strcmp(s->force[k].name, "arm_j2_spring") == 0) j2 = &s->force[k];
  assert_non_null(j2);
  assert_int_equal(j2->type, HG_FORCE_JOINT_SPRING);
  assert_string_equal(j2->joint, "arm_j2");
  assert_true(j2->stiffness == 2.5 && j2->damping == 0.2);
  assert_int_equal(j2->nrest, 1);
  /* MuJoCo turns 10 degrees into radians in single steps of double arithmetic */
  assert_true(fabs(j2->rest[0] - 10 * 3.14159265358979323846 / 180) < 1e-15);
  hg_body_spec *arm = hg_builder_body(s->builder, "arm_base");
  assert_non_null(arm);
  assert_string_equal(arm->parent, "cart");
  hg_scene_free(s);
}

/* sites become markers, one per include, prefixed */
static void sites(void **state) {
  hg_error err;
  (void)state;
  if (!hg_mjcf_available()) return;
  hg_scene *s = hg_scene_load("data/mjcf/scenes/tool_site.yaml", &err);
  if (!s) fprintf(stderr, "%s\n", err.msg);
  assert_non_null(s);
  const hg_marker *l = hg_scene_marker(s, "left_tool"), *r = hg_scene_marker(s, "right_tool");
  assert_non_null(l);
  assert_non_null(r);
  assert_string_equal(l->body, "left_link2");
  assert_string_equal(r->body, "right_link2");
  /* link2's joint has no pos, so hinge's frame is MuJoCo's: the site stays at x = 0.1 */
  assert_true(fabs(l->pose.p[0] - 0.1) < 1e-15);
  hg_scene_free(s);
}

/* a mesh geom is MuJoCo's compiled mesh placed at the geom's pose: its centre of mass and its
 * inertia per unit mass are the body's, which MuJoCo computed from the same mesh (link1 of
 * include.xml has that one geom). The mass itself is not compared: MuJoCo 2.2.2 gives this wedge
 * 1.1085 kg where its volume at 1000 kg/m^3 is 0.96 kg (a uniform factor 2/sqrt(3) that leaves
 * the centre of mass and the inertia per unit mass alone); hinge takes MuJoCo's inertia as
 * compiled, so the dynamics agree with MuJoCo's either way (test_mjcf_mujoco). */
static void mesh_geom(void **state) {
  hg_error err;
  hg_mesh mesh;
  hg_inertia G;
  (void)state;
  if (!hg_mjcf_available()) return;
  hg_builder *b = hg_builder_new();
  assert_int_equal(hg_mjcf_add(b, "data/mjcf/include.xml", NULL, NULL, NULL, NULL, NULL, &err), 0);
  hg_model *m = hg_builder_compile(b, &err);
  assert_non_null(m);
  int body = hg_model_body(m, "link1"), g = -1;
  for (int k = 0; k < m->ngeom; k++)
    if (m->geom[k].body == body) g = k;
  assert_true(g >= 0);
  assert_int_equal(m->geom[g].type, HG_GEOM_MESH);
  assert_int_equal(hg_mesh_load(m->geom[g].mesh, &mesh, &err), 0);
  hg_mesh_transform(&mesh, &m->geom[g].pose);
  assert_int_equal(hg_mesh_inertia(&mesh, 1000, &G, &err), 0);
  const hg_inertia *I = &m->inertia[body];
  double worst = 0, scale = 0;
  for (int k = 0; k < 6; k++) scale = fmax(scale, fabs(I->I[k] / I->m));
  for (int k = 0; k < 6; k++) worst = fmax(worst, fabs(G.I[k] / G.m - I->I[k] / I->m) / scale);
  /* the centre of mass, relative to the wedge's size (0.2 m) */
  for (int k = 0; k < 3; k++) worst = fmax(worst, fabs(G.h[k] / G.m - I->h[k] / I->m) / 0.2);
  fprintf(stderr, "mesh geom: mass %.9g (MuJoCo %.9g), worst relative difference %.1e\n", G.m,
          I->m, worst);
  /* MuJoCo stores the compiled vertices as floats (relative 6e-8) and the OBJ keeps them to 9
   * digits; the mass properties are cubic in them: 1e-6 relative covers both */
  assert_true(worst < 1e-6);
  hg_mesh_free(&mesh);
  hg_model_free(m);
  hg_builder_free(b);
}

/* the four-bar: its connect equality is a spherical loop and its weld a fixed one, between
 * markers that coincide at the file's pose; the include starts the crank at its ref and the free
 * payload where the file puts it (MuJoCo's qpos0), so the loops are closed at the start and stay
 * closed while the linkage swings */
static void fourbar_loops(void **state) {
  hg_error err;
  (void)state;
  if (!hg_mjcf_available()) return;
  hg_scene *s = hg_scene_load("data/mjcf/scenes/fourbar.yaml", &err);
  if (!s) fprintf(stderr, "%s\n", err.msg);
  assert_non_null(s);
  assert_int_equal(s->nloop, 2);
  assert_string_equal(s->loop[0].name, "fb_pin");
  assert_int_equal(s->loop[0].type, HG_JOINT_SPHERICAL);
  assert_string_equal(s->loop[1].name, "fb_glue");
  assert_int_equal(s->loop[1].type, HG_JOINT_FIXED);
  assert_string_equal(hg_scene_marker(s, "fb_pin_a")->body, "fb_coupler");
  assert_string_equal(hg_scene_marker(s, "fb_pin_b")->body, "fb_rocker");
  /* the motor (gear 2, ctrl up to 1.5: 3 N m at most); the position actuator is not one */
  assert_int_equal(s->nactuator, 1);
  assert_string_equal(s->actuator[0].name, "fb_drive");
  assert_string_equal(s->actuator[0].joint, "fb_crank");
  assert_int_equal(s->actuator[0].type, HG_ACT_MOTOR);
  assert_true(s->actuator[0].effort == 3 && s->actuator[0].gear == 1);
  /* the initial states: the crank's ref (its v from the scene), the payload's pose */
  int crank = -1, payload = -1;
  for (int k = 0; k < s->njinit; k++) {
    if (strcmp(s->jinit[k].joint, "fb_crank") == 0) crank = k;
    if (strcmp(s->jinit[k].joint, "fb_payload") == 0) payload = k;
  }
  assert_true(crank >= 0 && payload >= 0);
  assert_true(s->jinit[crank].has_q && s->jinit[crank].q[0] == 0.3);
  assert_true(s->jinit[crank].has_v && s->jinit[crank].v[0] == 1);
  assert_true(s->jinit[payload].q[0] == 1 && s->jinit[payload].q[2] == 1.2);
  /* euler 0 0 0.5 (radians): a turn of 0.5 about z, w = cos 0.25 */
  assert_true(fabs(s->jinit[payload].q[3] - cos(0.25)) < 1e-15);

  hg_sim *sim = hg_test_sim(s, 0.5, NULL);
  double worst = 0;
  for (int step = 1; step <= 5; step++) {
    assert_int_equal(hg_sim_run(sim, 0.1 * step), HG_SIM_OK);
    for (int k = 0; k < hg_sim_nloop(sim); k++) {
      hg_sim_loop_view lv;
      hg_sim_loop(sim, k, &lv);
      assert_true(lv.active);
      worst = fmax(worst, fmax(lv.distance, lv.angle));
    }
  }
  /* the linkage, started turning, moves (the crank leaves its start by more than 0.1 rad) */
  hg_sim_joint_view jv;
  int i = hg_model_joint(hg_sim_model(sim), "fb_crank");
  assert_true(i > 0);
  hg_sim_joint(sim, i, &jv);
  fprintf(stderr, "four-bar: crank %.3f rad at 0.5 s, worst loop violation %.1e\n", jv.q[0], worst);
  assert_true(fabs(jv.q[0] - 0.3) > 0.1);
  /* the runtime projects the loops after every step until each residual is below 1e-11 m and
   * rad (constraints.md); 1e-10 leaves a decade */
  assert_true(worst < 1e-10);
  hg_sim_free(sim);
  hg_scene_free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(bad_files),
      cmocka_unit_test(hostile_files),
      cmocka_unit_test(detection),
      cmocka_unit_test(scene_include),
      cmocka_unit_test(sites),
      cmocka_unit_test(mesh_geom),
      cmocka_unit_test(fourbar_loops),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
