/* test_collision.c: collision geometry and signed distances (sim/collision/collision.h) against
 * closed forms:
 *  - two spheres: |c1 - c2| - r1 - r2, witness points on the line of centres, and minus the
 *    overlap when they intersect;
 *  - a box and a sphere over a face, an edge and a corner of the box;
 *  - two parallel capsules side by side (the distance of their axes less both radii);
 *  - a cone standing on its base at the origin (hinge's convention) under a sphere above its apex;
 *  - a closed mesh (a cube written as OBJ) against a sphere, like the analytic box;
 *  - shapes placed by their pose in the body and the body's world pose; several shapes per body:
 *    the minimum over every pair; bodies without collision shapes;
 *  - the broad phase: the distance between two sets of 20 bodies (two shapes each, at random
 *    poses) equals the least of the 400 body-against-body distances, bit for bit;
 *  - a run's outputs: the clearance columns of an output pair equal |c1 - c2| - r1 - r2 at
 *    every row, and the summary reports the separation, its minimum and the re-contact. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collision.h"
#include "files.h"
#include "scene.h"
#include "sims.h"

/* the distances are FCL's GJK iterated to a distance tolerance of 1e-10 (collision.cpp) and
 * exact triangle queries for meshes: closed forms on metre-sized shapes hold to 1e-8 m, two
 * orders above that tolerance (the witness points converge more slowly than the distance) */
#define TOL 1e-8

/* a model of n free bodies (the world first), each with the shapes given */
static hg_model *model_of(int nbody, const hg_geom *geoms, int ngeom) {
  hg_builder *b = hg_builder_new();
  hg_error err;
  const char *why;
  for (int i = 1; i < nbody; i++) {
    char name[16];
    snprintf(name, sizeof name, "b%d", i);
    hg_body_spec spec;
    memset(&spec, 0, sizeof spec);
    spec.name = name;
    hg_joint_init(&spec.joint, HG_JOINT_FREE, NULL, NULL, 0, &why);
    hg_se3_identity(&spec.offset);
    double com[3] = {0, 0, 0}, I[6] = {0.1, 0.1, 0.1, 0, 0, 0};
    char whyi[128];
    hg_inertia_from_com(1, com, I, &spec.inertia, whyi, sizeof whyi);
    if (hg_builder_add_body(b, &spec, &err)) fail_msg("%s", err.msg);
  }
  for (int k = 0; k < ngeom; k++) {
    char name[16];
    snprintf(name, sizeof name, "b%d", geoms[k].body);
    if (hg_builder_add_geom(b, name, &geoms[k], &err)) fail_msg("%s", err.msg);
  }
  hg_model *m = hg_builder_compile(b, &err);
  if (!m) fail_msg("%s", err.msg);
  hg_builder_free(b);
  return m;
}

/* the collision geometry of model_of(nbody, geoms, ngeom), the model into *m; fails the test when
 * it is refused */
static hg_collision *collision_of(int nbody, const hg_geom *geoms, int ngeom, hg_model **m) {
  hg_error err;
  *m = model_of(nbody, geoms, ngeom);
  hg_collision *c = hg_collision_new(*m, &err);
  if (!c) fail_msg("%s", err.msg);
  return c;
}

static hg_geom shape(int body, hg_geom_type type, double s0, double s1, double s2) {
  hg_geom g;
  memset(&g, 0, sizeof g);
  g.type = type;
  g.body = body;
  g.collision = 1;
  g.size[0] = s0, g.size[1] = s1, g.size[2] = s2;
  hg_se3_identity(&g.pose);
  return g;
}

static hg_se3 at(double x, double y, double z) {
  hg_se3 T;
  hg_se3_identity(&T);
  T.p[0] = x, T.p[1] = y, T.p[2] = z;
  return T;
}

/* distance between body 1 and body 2 at poses T */
static hg_clearance query(const hg_collision *c, const hg_se3 *T) {
  hg_clearance r;
  int a = 1, b = 2;
  assert_int_equal(hg_collision_distance(c, T, &a, 1, &b, 1, &r), 0);
  return r;
}

static void spheres(void **state) {
  (void)state;
  hg_geom g[2] = {shape(1, HG_GEOM_SPHERE, 0.5, 0, 0), shape(2, HG_GEOM_SPHERE, 0.3, 0, 0)};
  hg_model *m;
  hg_collision *c = collision_of(3, g, 2, &m);
  assert_non_null(c);
  hg_se3 T[3] = {at(0, 0, 0), at(1, 2, 3), at(1, 2, 3)};
  /* apart along a diagonal: 2 - 0.8 */
  T[2] = at(1 + 2 / sqrt(3.0), 2 + 2 / sqrt(3.0), 3 + 2 / sqrt(3.0));
  hg_clearance r = query(c, T);
  if (!(fabs(r.distance - 1.2) <= TOL)) fail_msg("apart: %.12g, expected 1.2", r.distance);
  double pa_exp = 0.5 / sqrt(3.0), pb_exp = (2 - 0.3) / sqrt(3.0);
  for (int k = 0; k < 3; k++) {
    assert_true(fabs(r.pa[k] - (T[1].p[k] + pa_exp)) <= TOL);
    assert_true(fabs(r.pb[k] - (T[1].p[k] + pb_exp)) <= TOL);
  }
  /* overlapping by 0.1 */
  T[2] = at(1.7, 2, 3);
  r = query(c, T);
  if (!(fabs(r.distance + 0.1) <= TOL)) fail_msg("overlap: %g, expected -0.1", r.distance);
  printf("# spheres overlapping by 0.1 m: %.17g\n", r.distance);
  hg_collision_free(c);
  hg_model_free(m);
}

static void box_and_sphere(void **state) {
  (void)state;
  hg_geom g[2] = {shape(1, HG_GEOM_BOX, 2, 1, 0.5), shape(2, HG_GEOM_SPHERE, 0.2, 0, 0)};
  hg_model *m;
  hg_collision *c = collision_of(3, g, 2, &m);
  hg_se3 T[3] = {at(0, 0, 0), at(0, 0, 0), at(0, 0, 0)};
  /* over the +x face, beyond the edge (x, y), beyond the corner */
  const double pos[3][3] = {{1.5, 0.1, 0}, {1.3, 0.9, 0}, {1.3, 0.9, 0.6}};
  const double expect[3] = {0.5 - 0.2, sqrt(0.3 * 0.3 + 0.4 * 0.4) - 0.2,
                            sqrt(0.3 * 0.3 + 0.4 * 0.4 + 0.35 * 0.35) - 0.2};
  for (int k = 0; k < 3; k++) {
    T[2] = at(pos[k][0], pos[k][1], pos[k][2]);
    hg_clearance r = query(c, T);
    if (!(fabs(r.distance - expect[k]) <= TOL)) fail_msg("case %d: %g, expected %g", k, r.distance, expect[k]);
    /* the witness point on the box lies on its surface, clamped to it */
    assert_true(fabs(r.pa[0]) <= 1 + TOL && fabs(r.pa[1]) <= 0.5 + TOL && fabs(r.pa[2]) <= 0.25 + TOL);
  }
  hg_collision_free(c);
  hg_model_free(m);
}

static void capsules_and_cone(void **state) {
  (void)state;
  /* body 1: a capsule along z; body 2: a capsule along z turned by its shape pose to x, then a
   * cone; the body pose moves it */
  hg_geom g[3] = {shape(1, HG_GEOM_CAPSULE, 0.1, 1.0, 0), shape(2, HG_GEOM_CAPSULE, 0.2, 2.0, 0),
                  shape(2, HG_GEOM_CONE, 0.5, 1.0, 0)};
  /* the second capsule along z too, 1 m to the side: the axes are 1 m apart */
  hg_model *m;
  hg_collision *c = collision_of(3, g, 3, &m);
  hg_se3 T[3] = {at(0, 0, 0), at(0, 0, 0), at(1, 0, 100)};
  /* far up: only the cone (base at the origin of body 2, apex at +1 m) is near... put body 2 so
   * that capsule 2 is far and the cone's apex is under body 1's capsule end */
  T[2] = at(0, 0, -3);
  hg_clearance r = query(c, T);
  /* capsule 1 reaches z = -0.6; the cone's apex is at z = -2; capsule 2 spans z in [-4.2, -1.8]
   * on the axis: the closest is capsule 2's top cap at -1.8: gap 1.2 */
  if (!(fabs(r.distance - 1.2) <= TOL)) fail_msg("stacked: %g, expected 1.2", r.distance);
  /* side by side: axes 1 m apart; capsule 2 (radius 0.2) would leave 0.7, but the cone's base
   * (radius 0.5, at body 2's origin) comes within 1 - 0.5 - 0.1 */
  T[2] = at(1, 0, 0);
  r = query(c, T);
  if (!(fabs(r.distance - 0.4) <= TOL)) fail_msg("side by side: %g, expected 0.4", r.distance);
  /* above the cone's apex (1 m above its base at body 2's origin): a sphere-less check with
   * capsule 1's lower cap: body 1 at z = 2.7 reaches down to 2.1, the apex is at 1 */
  T[1] = at(1, 0, 2.7);
  T[2] = at(1, 0, 0);
  r = query(c, T);
  /* capsule 2 (length 2, centred) reaches z = 1.2 and is closer than the apex: 2.1 - 1.2 */
  if (!(fabs(r.distance - 0.9) <= TOL)) fail_msg("above: %g, expected 0.9", r.distance);
  hg_collision_free(c);
  hg_model_free(m);
}

static void mesh_cube_like_the_box(void **state) {
  (void)state;
  char dir[256], path[300];
  assert_int_equal(hg_test_temp_dir("collision", dir, sizeof dir), 0);
  snprintf(path, sizeof path, "%s/cube.obj", dir);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  /* the unit cube [-0.5, 0.5]^3, outward faces */
  fputs("v -0.5 -0.5 -0.5\nv 0.5 -0.5 -0.5\nv 0.5 0.5 -0.5\nv -0.5 0.5 -0.5\n"
        "v -0.5 -0.5 0.5\nv 0.5 -0.5 0.5\nv 0.5 0.5 0.5\nv -0.5 0.5 0.5\n"
        "f 1 4 3 2\nf 5 6 7 8\nf 1 2 6 5\nf 2 3 7 6\nf 3 4 8 7\nf 4 1 5 8\n", f);
  fclose(f);
  hg_geom g[3] = {shape(1, HG_GEOM_MESH, 2, 1, 0.5), shape(2, HG_GEOM_SPHERE, 0.2, 0, 0),
                  shape(2, HG_GEOM_BOX, 0.1, 0.1, 0.1)};
  g[0].mesh = path; /* scaled to 2 x 1 x 0.5, as the box above */
  g[2].pose.p[0] = 50; /* a second shape of body 2, far away: the minimum is the sphere's */
  hg_model *m;
  hg_collision *c = collision_of(3, g, 3, &m);
  assert_int_equal(hg_collision_count(c, 1), 1);
  assert_int_equal(hg_collision_count(c, 2), 2);
  hg_se3 T[3] = {at(0, 0, 0), at(0, 0, 0), at(1.3, 0.9, 0)};
  hg_clearance r = query(c, T);
  double expect = sqrt(0.3 * 0.3 + 0.4 * 0.4) - 0.2;
  if (!(fabs(r.distance - expect) <= TOL)) fail_msg("mesh: %g, expected %g", r.distance, expect);
  assert_int_equal(r.body_a, 1);
  assert_int_equal(r.body_b, 2);
  /* no shape on the world body: an empty set */
  int w = 0, b2 = 2;
  hg_clearance e;
  assert_int_equal(hg_collision_distance(c, T, &w, 1, &b2, 1, &e), -1);
  assert_true(isinf(e.distance));
  /* a missing mesh file is an error naming the body */
  g[0].mesh = "no_such_mesh.obj";
  hg_error err;
  hg_model *m2 = model_of(3, g, 1);
  assert_null(hg_collision_new(m2, &err));
  assert_non_null(strstr(err.msg, "body 'b1'"));
  hg_model_free(m2);
  hg_collision_free(c);
  hg_model_free(m);
  hg_test_remove_dir(dir);
}

/* hinge's cone stands on its base: the apex of a 1 m cone at the origin is at z = 1 */
static void cone_stands_on_its_base(void **state) {
  (void)state;
  hg_geom g[2] = {shape(1, HG_GEOM_SPHERE, 0.1, 0, 0), shape(2, HG_GEOM_CONE, 0.5, 1.0, 0)};
  hg_model *m;
  hg_collision *c = collision_of(3, g, 2, &m);
  hg_se3 T[3] = {at(0, 0, 0), at(0, 0, 1.5), at(0, 0, 0)};
  hg_clearance r = query(c, T);
  if (!(fabs(r.distance - 0.4) <= TOL)) fail_msg("over the apex: %g, expected 0.4", r.distance);
  /* below the base: 0.5 under the origin */
  T[1] = at(0, 0, -0.6);
  r = query(c, T);
  if (!(fabs(r.distance - 0.5) <= TOL)) fail_msg("under the base: %g, expected 0.5", r.distance);
  hg_collision_free(c);
  hg_model_free(m);
}

/* a clearance event through the integrator's root finding: a box closing on a sphere at
 * 0.5 m/s is stopped by an impulse when their gap falls below 0.05 m. As for every condition,
 * the steps must be short enough to see the crossing: without max_step this force-free motion
 * takes 1 s steps and the box passes through the sphere between two of them. */
static const char approach_scene[] =
    "gravity: [0, 0, 0]\n"
    "bodies:\n"
    "  - name: a\n"
    "    joint: free\n"
    "    inertia: {mass: 1000, inertia: [100, 100, 100]}\n"
    "    geometry: [{type: sphere, radius: 0.5, collision: true}]\n"
    "  - name: b\n"
    "    joint: free\n"
    "    inertia: {mass: 1, inertia: [0.01, 0.01, 0.01]}\n"
    "    geometry: [{type: box, size: [0.6, 0.6, 0.6], collision: true}]\n"
    "initial:\n"
    "  bodies:\n"
    "    b: {pos: [3, 0, 0], twist: [0, 0, 0, -0.5, 0, 0]}\n"
    "events:\n"
    "  - name: stop\n"
    "    when: {clearance: [a, [b]], below: 0.05}\n"
    "    do: [{impulse: {body: b, linear: [0.5, 0, 0]}}]\n"
    "integrator: {method: cvode-adams, rtol: 1e-10, max_step: 0.1}\n"
    "time: {start: 0, end: 8}\n"
    "output: {dt: 0.1}\n";

static void clearance_event_fires_on_time(void **state) {
  (void)state;
  char dir[256];
  hg_scene *s = hg_test_scene_temp("clearance", "approach.yaml", approach_scene, dir, sizeof dir);
  hg_sim *sim = hg_test_sim(s, NAN, NULL);
  assert_int_equal(hg_sim_run(sim, INFINITY), HG_SIM_OK);
  assert_int_equal(hg_sim_nevents(sim), 1);
  /* the box's face (x - 0.3) reaches 0.5 + 0.05: 3 - 0.5 t - 0.3 = 0.55 at t = 4.3 s */
  double t = hg_sim_event_at(sim, 0)->t;
  /* CVODE locates roots to ~1e-14 (|t| + h) s (integrator.h); the distance itself comes from
   * FCL to 1e-10 m, i.e. 2e-10 s at 0.5 m/s */
  if (!(fabs(t - 4.3) <= 1e-8)) fail_msg("the clearance event fired at %.12g s, expected 4.3", t);
  const char *a[] = {"a"}, *b[] = {"b"};
  hg_clearance cl;
  assert_int_equal(hg_sim_clearance(sim, a, 1, b, 1, &cl), 0);
  /* stopped there by the impulse (the sphere was at rest and stays so) */
  if (!(fabs(cl.distance - 0.05) <= 1e-8)) fail_msg("the gap is %.12g at the end", cl.distance);
  printf("# clearance below 0.05 m at t = %.12g s (4.3 expected); %.9g m at the end\n", t,
         cl.distance);
  hg_sim_free(sim);
  hg_scene_free(s);
  hg_test_remove_dir(dir);
}

/* xorshift64: a uniform number in [0, 1) */
static double uniform(unsigned long long *r) {
  *r ^= *r << 13, *r ^= *r >> 7, *r ^= *r << 17;
  return (double)(*r >> 11) / 9007199254740992.0;
}

/* the bounding-sphere broad phase prunes pairs that cannot be nearest and never changes the
 * answer: two sets of 20 bodies, each a box and a capsule (or a sphere and a cone) at random
 * poses in a 10 m cube, against the minimum of every body pair queried alone */
static void broad_phase_matches_every_pair(void **state) {
  (void)state;
  enum { N = 40 };
  hg_geom g[2 * N];
  unsigned long long r = 88172645463325252ull;
#define RAND() uniform(&r)
  for (int i = 1; i <= N; i++) {
    double u[9];
    for (int k = 0; k < 9; k++) u[k] = RAND();
    g[2 * i - 2] = i % 2 ? shape(i, HG_GEOM_BOX, 0.2 + u[0], 0.2 + u[1], 0.2 + u[2])
                         : shape(i, HG_GEOM_SPHERE, 0.1 + 0.5 * u[0], 0, 0);
    g[2 * i - 1] = i % 2 ? shape(i, HG_GEOM_CAPSULE, 0.1 + 0.2 * u[3], 0.5 + u[4], 0)
                         : shape(i, HG_GEOM_CONE, 0.2 + 0.3 * u[3], 0.5 + u[4], 0);
    g[2 * i - 1].pose = at(0.5 * u[5], 0.5 * u[6], 0.5 * u[7]);
  }
  hg_model *m;
  hg_collision *c = collision_of(N + 1, g, 2 * N, &m);
  assert_non_null(c);
  hg_se3 T[N + 1];
  hg_se3_identity(&T[0]);
  for (int i = 1; i <= N; i++) {
    double u[6];
    for (int k = 0; k < 6; k++) u[k] = RAND();
    double rpy[3] = {6.3 * u[0], 6.3 * u[1], 6.3 * u[2]};
    T[i] = at(10 * u[3], 10 * u[4], 10 * u[5]);
    hg_rpy_to_R(rpy, T[i].R);
  }
  int A[N / 2], B[N / 2];
  for (int k = 0; k < N / 2; k++) A[k] = 1 + k, B[k] = 1 + N / 2 + k;
  hg_clearance all, one;
  assert_int_equal(hg_collision_distance(c, T, A, N / 2, B, N / 2, &all), 0);
  double best = INFINITY;
  for (int i = 0; i < N / 2; i++)
    for (int j = 0; j < N / 2; j++) {
      assert_int_equal(hg_collision_distance(c, T, &A[i], 1, &B[j], 1, &one), 0);
      best = fmin(best, one.distance);
    }
#undef RAND
  printf("# two sets of %d bodies: %.12g m, the least pair %.12g m\n", N / 2, all.distance, best);
  assert_true(all.distance == best);
  hg_collision_free(c);
  hg_model_free(m);
}

/* two spheres (radii 0.5, 0.25) on free joints, b moving at 1 m/s through a: an output pair */
static const char pass_scene[] =
    "bodies:\n"
    "  - name: a\n"
    "    joint: free\n"
    "    inertia: {mass: 1, inertia: [0.1, 0.1, 0.1]}\n"
    "    geometry: [{type: sphere, radius: 0.5, collision: true}]\n"
    "  - name: b\n"
    "    joint: free\n"
    "    inertia: {mass: 1, inertia: [0.1, 0.1, 0.1]}\n"
    "    geometry: [{type: sphere, radius: 0.25, collision: true}]\n"
    "initial:\n"
    "  bodies:\n"
    "    b: {pos: [3, 0, 0], twist: [0, 0, 0, -1, 0, 0]}\n"
    "time: {start: 0, end: 4}\n"
    "output: {dt: 0.05, pairs: [[a, b]]}\n";

static void clearance_outputs(void **state) {
  (void)state;
  char dir[256], path[320], line[4096];
  hg_scene *s = hg_test_scene_temp("clearance_out", "pass.yaml", pass_scene, dir, sizeof dir);
  hg_sim *sim = hg_test_sim(s, NAN, dir);
  assert_int_equal(hg_sim_run(sim, INFINITY), HG_SIM_OK);
  assert_int_equal(hg_sim_finish(sim), HG_SIM_OK);
  /* every row: a-b.clearance (column 3 of the pair block) against the closed form */
  snprintf(path, sizeof path, "%s/trajectory.csv", dir);
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  assert_non_null(fgets(line, sizeof line, f));
  int col = 0, at = 0;
  for (char *tok = strtok(line, ",\n"); tok; tok = strtok(NULL, ",\n"), at++)
    if (!strcmp(tok, "a-b.clearance")) col = at;
  assert_true(col > 0);
  double worst = 0;
  int rows = 0;
  while (fgets(line, sizeof line, f)) {
    double t = strtod(line, NULL), x = NAN;
    at = 0;
    for (char *tok = strtok(line, ","); tok; tok = strtok(NULL, ","), at++)
      if (at == col) x = strtod(tok, NULL);
    double gap = fabs(3 - t) - 0.75;
    if (gap > 1e-6) worst = fmax(worst, fabs(x - gap)), rows++; /* apart: the distance */
    else assert_true(x <= 1e-9);                                  /* overlapping: minus a depth */
  }
  fclose(f);
  printf("# clearance column: %d rows apart, worst error %.2g m\n", rows, worst);
  assert_true(worst <= 1e-9); /* FCL's distance tolerance 1e-10 m, the state to rtol */
  /* the summary: apart at the start, re-contact when the gap closes at t = 2.25 s */
  snprintf(path, sizeof path, "%s/summary.txt", dir);
  char *sum = hg_test_read_file(path, NULL);
  assert_non_null(sum);
  assert_non_null(strstr(sum, "separation: a-b apart from t = 0 s"));
  assert_non_null(strstr(sum, "recontact: a-b YES, clearance <= 0 again"));
  assert_non_null(strstr(sum, "first at t = 2.25 s"));
  free(sum);
  hg_sim_free(sim);
  hg_scene_free(s);
  hg_test_remove_dir(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(spheres),
      cmocka_unit_test(box_and_sphere),
      cmocka_unit_test(capsules_and_cone),
      cmocka_unit_test(cone_stands_on_its_base),
      cmocka_unit_test(clearance_event_fires_on_time),
      cmocka_unit_test(mesh_cube_like_the_box),
      cmocka_unit_test(clearance_outputs),
      cmocka_unit_test(broad_phase_matches_every_pair),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
