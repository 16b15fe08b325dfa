/* test_mesh_contact.c: contact against collision meshes behaves as against the primitives they
 * describe (sim/collision: closed convex mesh parts are solids):
 *  - a sphere dropped on a closed 12-triangle mesh plate rebounds as on the same plate given as a
 *    box, in about as many steps;
 *  - a box on the mesh plate rebounds as on the box plate, and the step does not collapse;
 *  - the same on an open plate (a surface), landing on the seam of two triangles;
 *  - a probe into a drogue given as one mesh of eight panels captures as with the eight boxes,
 *    and into a drogue given as an open cone of triangles it captures too;
 *  - the witness points of a sphere and an offset mesh are in the world frame. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collision.h"
#include "files.h"
#include "sims.h"

/* one run of a scene file to t_end: the mover's final vertical velocity, the steps taken, and
 * the time of the first capture (NaN: none) */
typedef struct run_result {
  double vz;
  long steps;
  double t_capture;
} run_result;

static run_result run(const char *path, const char *mover, double t_end) {
  run_result r = {0, 0, NAN};
  hg_scene *s = hg_test_scene(path);
  hg_sim *sim = hg_test_sim(s, t_end, NULL);
  assert_int_equal(hg_sim_run(sim, INFINITY), HG_SIM_OK);
  hg_se3 T;
  double tw[6];
  hg_sim_body(sim, hg_model_body(hg_sim_model(sim), mover), &T, tw);
  r.vz = tw[5];
  hg_integ_stats st;
  hg_sim_stats(sim, &st);
  r.steps = st.steps;
  for (int k = 0; k < hg_sim_nevents(sim); k++)
    if (strcmp(hg_sim_event_at(sim, k)->name, "capture") == 0) {
      r.t_capture = hg_sim_event_at(sim, k)->t;
      break;
    }
  hg_sim_free(sim);
  hg_scene_free(s);
  return r;
}

/* The mesh twin rebounds at the primitive twin's speed to 1e-6 m/s: both see the same contact
 * law on the same surface, and differ only by rounding in the geometry (the mesh's exact
 * sphere-polytope distance, or its corner manifold, against FCL's box queries) and by CVODE's
 * step sequence at rtol 1e-8 of a 0.05 m/s speed. Steps within a factor 2 of the twin's. */
static void check_twins(const char *label, run_result mesh, run_result prim) {
  printf("# %s: mesh plate %.9f m/s in %ld steps, box plate %.9f m/s in %ld steps\n", label,
         mesh.vz, mesh.steps, prim.vz, prim.steps);
  assert_true(prim.vz > 0.04);  /* the primitive twin bounces: restitution 0.5 of 0.1 m/s */
  assert_true(fabs(mesh.vz - prim.vz) <= 1e-6);
  assert_true(mesh.steps <= 2 * prim.steps && prim.steps <= 2 * mesh.steps);
}

/* a 1 kg sphere of radius 0.04 m at 0.1 m/s onto a closed mesh plate: it bounces (FCL's
 * sphere-triangle test reported its depth negated, and the sphere passed through) */
static void sphere_bounces_on_mesh_plate(void **state) {
  (void)state;
  check_twins("sphere", run("data/scenes/contact_sphere_on_mesh_plate.yaml", "ball", 0.3),
              run("data/scenes/contact_sphere_on_box_plate.yaml", "ball", 0.3));
}

/* the sphere onto the open plate (no bottom face: a surface), on the seam of the top face's two
 * triangles: it bounces as on the box (both triangles' nearest point is the same seam point, and
 * was counted twice) */
static void sphere_bounces_on_open_plate_seam(void **state) {
  (void)state;
  check_twins("sphere, open plate",
              run("data/scenes/contact_sphere_on_open_plate.yaml", "ball", 0.3),
              run("data/scenes/contact_sphere_on_box_plate.yaml", "ball", 0.3));
}

/* a 1 kg box at 0.1 m/s onto the mesh plate: it bounces in about as many steps as on the box
 * plate (GJK/EPA's single contact point wandered over the face, and the step collapsed) */
static void box_bounces_on_mesh_plate(void **state) {
  (void)state;
  check_twins("box", run("data/scenes/contact_box_on_mesh_plate.yaml", "ball", 0.3),
              run("data/scenes/contact_box_on_box_plate.yaml", "ball", 0.3));
}

/* the probe steered down a drogue given as a mesh captures when the box-panel drogue does: to
 * 1e-5 s of 8.7 s (the two runs differ by the panels' corners rounded to 17 digits and by their
 * step sequences at rtol 1e-8), in about as many steps */
static void mesh_drogue_captures(void **state) {
  (void)state;
  run_result mesh = run("data/scenes/probe_drogue_mesh.yaml", "chaser", 10);
  run_result prim = run("../scenes/probe_drogue.yaml", "chaser", 10);
  printf("# drogue: mesh captures at %.9f s in %ld steps, boxes at %.9f s in %ld steps\n",
         mesh.t_capture, mesh.steps, prim.t_capture, prim.steps);
  assert_true(prim.t_capture > 8 && prim.t_capture < 9);
  assert_true(fabs(mesh.t_capture - prim.t_capture) <= 1e-5);
  assert_true(mesh.steps <= 2 * prim.steps && prim.steps <= 2 * mesh.steps);
}

/* A sphere (or a 0.1 m cube) 0.01 m above the top face of the mesh plate, the plate's geometry
 * offset by (1, 2, 3) in a body at (10, 0, 0) turned 90 degrees about z: the distance is 0.01
 * and the witness points lie on the plate's top face and the mover's bottom, world frame, to
 * 1e-12 m for the sphere (rounding of a few products of numbers of order 10) and 1e-9 m for the
 * cube (GJK's distance tolerance is 1e-10 relative to sizes of order 10). For the cube, whose
 * face is parallel to the plate's, any point of the overlap of the faces is a witness: only its
 * height and that it lies under the cube are checked. The closed plate is a solid, the open one
 * (no bottom face) a surface: both answer the same above their top face. */
static void witness_case(const char *mesh, const char *mover, double half) {
  char dir[256], cwd[512], text[2048];
  assert_non_null(getcwd(cwd, sizeof cwd));
  assert_int_equal(hg_test_temp_dir("mesh_witness", dir, sizeof dir), 0);
  snprintf(text, sizeof text,
           "gravity: [0, 0, 0]\n"
           "bodies:\n"
           "  - name: plate\n"
           "    joint: {type: fixed, pos: [10, 0, 0], rpy_deg: [0, 0, 90]}\n"
           "    inertia: {mass: 1, inertia: [1, 1, 1]}\n"
           "    geometry: [{type: mesh, mesh: %s/data/meshes_contact/%s, pos: [1, 2, 3],\n"
           "                collision: true}]\n"
           "  - name: ball\n"
           "    joint: free\n"
           "    inertia: {mass: 1, inertia: [1, 1, 1]}\n"
           "    geometry: [%s]\n"
           "time: {start: 0, end: 1}\n",
           cwd, mesh, mover);
  hg_scene *s = hg_test_scene_text(dir, "witness.yaml", text);
  hg_error err;
  hg_model *m = hg_builder_compile(s->builder, &err);
  assert_non_null(m);
  hg_data *d = hg_data_new(m);
  hg_collision *c = hg_collision_new(m, &err);
  assert_non_null(c);
  double q[16], v[16] = {0};
  hg_model_neutral(m, q);
  int plate = hg_model_body(m, "plate"), ball = hg_model_body(m, "ball");
  /* the plate's centre in the world: (10, 0, 0) + Rz(90) (1, 2, 3) = (8, 1, 3); its top at 3.01 */
  double *qb = q + m->q_adr[ball];
  qb[0] = 8.1, qb[1] = 1.05, qb[2] = 3.01 + half + 0.01;
  hg_kinematics(m, d, q, v);
  hg_clearance cl;
  assert_int_equal(hg_collision_distance(c, d->T_world, &plate, 1, &ball, 1, &cl), 0);
  printf("# witness, %s and %s: d = %.15f, on the plate (%.12f %.12f %.12f), on the mover "
         "(%.12f %.12f %.12f)\n", mesh, mover, cl.distance, cl.pa[0], cl.pa[1], cl.pa[2],
         cl.pb[0], cl.pb[1], cl.pb[2]);
  double tol = half == 0.04 ? 1e-12 : 1e-9;
  assert_true(fabs(cl.distance - 0.01) <= tol);
  assert_true(fabs(cl.pa[2] - 3.01) <= tol && fabs(cl.pb[2] - 3.02) <= tol);
  for (int r = 0; r < 2; r++) {
    double centre = r == 0 ? 8.1 : 1.05, reach = half == 0.04 ? tol : 0.05 + tol;
    assert_true(fabs(cl.pa[r] - centre) <= reach && fabs(cl.pb[r] - centre) <= reach);
  }
  hg_collision_free(c);
  hg_data_free(d);
  hg_model_free(m);
  hg_scene_free(s);
  hg_test_remove_dir(dir);
}

static void mesh_witness_points_are_world(void **state) {
  (void)state;
  witness_case("plate.obj", "{type: sphere, radius: 0.04, collision: true}", 0.04);
  witness_case("plate_open.obj", "{type: sphere, radius: 0.04, collision: true}", 0.04);
  witness_case("plate.obj", "{type: box, size: [0.1, 0.1, 0.1], collision: true}", 0.05);
  witness_case("plate_open.obj", "{type: box, size: [0.1, 0.1, 0.1], collision: true}", 0.05);
}

/* the probe into a drogue given as an open cone of 64 triangles (a surface; a smooth cone, not
 * the eight flat panels, so it captures at a time of its own): it slides down and captures
 * within 8-9 s as the panel drogue does at 8.70 s, in at most twice the panel drogue's steps (the
 * tip's contact jumped between triangles at their seams and the step collapsed) */
static void cone_drogue_captures(void **state) {
  (void)state;
  run_result cone = run("data/scenes/probe_drogue_cone.yaml", "chaser", 10);
  run_result prim = run("../scenes/probe_drogue.yaml", "chaser", 10);
  printf("# open cone drogue: captures at %.9f s in %ld steps (panels: %.9f s, %ld steps)\n",
         cone.t_capture, cone.steps, prim.t_capture, prim.steps);
  assert_true(cone.t_capture > 8 && cone.t_capture < 9);
  assert_true(cone.steps <= 2 * prim.steps);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(mesh_witness_points_are_world),
      cmocka_unit_test(sphere_bounces_on_mesh_plate),
      cmocka_unit_test(box_bounces_on_mesh_plate),
      cmocka_unit_test(sphere_bounces_on_open_plate_seam),
      cmocka_unit_test(mesh_drogue_captures),
      cmocka_unit_test(cone_drogue_captures),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
