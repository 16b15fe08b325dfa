/* test_contact.c: the compliant contact element (sim/forces, type contact) against closed forms
 * and an independent integration:
 *  - a sphere settles on the ground at the depth where k d^n = m g;
 *  - a dropped sphere leaves the ground at the speed a separate one-dimensional integration of
 *    the Hunt-Crossley law gives, so it rises to the height that predicts; without dissipation
 *    it rises back to where it started;
 *  - a box sliding on the ground stops after v0^2 / (2 mu g), at t = v0 / (mu g);
 *  - two free spheres striking obliquely with friction keep their total momentum, angular and
 *    linear;
 *  - a fast ball does not pass through a thin plate (the contact step bound);
 *  - the contact manifold of a box on a box: four corners at the depth of the overlap;
 *  - the energy budget closes in every run. */
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
#include "forces.h"
#include "files.h"
#include "sims.h"

#define G 9.81

/* a ground slab (top face at z = 0) and one body above it, with a contact element between them */
static hg_scene *ground_scene(const char *dir, const char *body, const char *contact,
                              const char *init, double t_end) {
  char text[4096];
  snprintf(text, sizeof text,
           "gravity: [0, 0, -9.81]\n"
           "bodies:\n"
           "  - name: ground\n"
           "    joint: fixed\n"
           "    inertia: {mass: 1, inertia: [1, 1, 1]}\n"
           "    geometry: [{type: box, size: [20, 20, 1], pos: [0, 0, -0.5], collision: true}]\n"
           "%s"
           "forces:\n"
           "  - {name: touch, type: contact, between: [thing, ground], %s}\n"
           "initial:\n"
           "  bodies: {thing: %s}\n"
           "integrator: {method: cvode-bdf, rtol: 1e-10, atol: 1e-12}\n"
           "time: {start: 0, end: %g}\n"
           "output: {dt: 0.01}\n",
           body, contact, init, t_end);
  return hg_test_scene_text(dir, "contact.yaml", text);
}

static const char ball[] =
    "  - name: thing\n"
    "    joint: free\n"
    "    inertia: {mass: 1, inertia: [0.004, 0.004, 0.004]}\n"
    "    geometry: [{type: sphere, radius: 0.1, collision: true}]\n";

/* the energy budget closed to what CVODE's tolerances leave */
static void assert_budget(hg_sim *sim, double tol) {
  hg_sim_budget b;
  hg_sim_get_budget(sim, &b);
  printf("#   energy budget: drift %.3g of %.4g J (dissipated %.6g J)\n", b.max_drift, b.scale,
         -b.work);
  if (!(b.max_drift <= tol)) fail_msg("energy budget drift %g > %g", b.max_drift, tol);
}

/* two free 1 kg spheres a and b (r = 0.1 m) in zero gravity, a contact element between them with
 * the given keys, and their initial poses and twists */
static hg_scene *two_spheres(const char *dir, const char *contact, const char *a, const char *b,
                             double t_end) {
  char text[2048];
  snprintf(text, sizeof text,
           "gravity: [0, 0, 0]\n"
           "bodies:\n"
           "  - {name: a, joint: free, inertia: {mass: 1, inertia: [0.004, 0.004, 0.004]},\n"
           "     geometry: [{type: sphere, radius: 0.1, collision: true}]}\n"
           "  - {name: b, joint: free, inertia: {mass: 1, inertia: [0.004, 0.004, 0.004]},\n"
           "     geometry: [{type: sphere, radius: 0.1, collision: true}]}\n"
           "forces:\n"
           "  - {name: knock, type: contact, between: [a, b], %s}\n"
           "initial:\n"
           "  bodies: {a: %s, b: %s}\n"
           "integrator: {method: cvode-bdf, rtol: 1e-10, atol: 1e-12}\n"
           "time: {start: 0, end: %g}\n"
           "output: {dt: 0.01}\n",
           contact, a, b, t_end);
  return hg_test_scene_text(dir, "spheres.yaml", text);
}

/* body "thing"'s world height and vertical velocity */
static void thing_z(hg_sim *sim, double *z, double *vz) {
  hg_se3 T;
  double tw[6];
  hg_sim_body(sim, hg_model_body(hg_sim_model(sim), "thing"), &T, tw);
  *z = T.p[2];
  *vz = tw[5];
}

/* A sphere of 1 kg on k = 1e5 N/m^1.5 comes to rest at the depth d = (m g / k)^(2/3), the only
 * depth where the elastic force carries its weight (dissipation only acts while it moves). */
static void sphere_rests_at_hertz_depth(void **state) {
  (void)state;
  char dir[256];
  assert_int_equal(hg_test_temp_dir("contact_rest", dir, sizeof dir), 0);
  hg_scene *s = ground_scene(dir, ball, "stiffness: 1e5, dissipation: 5",
                             "{pos: [0, 0, 0.1]}", 3);
  hg_sim *sim = hg_test_sim(s, NAN, NULL);
  assert_int_equal(hg_sim_run(sim, INFINITY), HG_SIM_OK);
  double z, vz, d = pow(G / 1e5, 2.0 / 3);
  thing_z(sim, &z, &vz);
  printf("# sphere at rest: depth %.12g m, (mg/k)^(2/3) = %.12g m, |vz| %.2g m/s\n", 0.1 - z, d,
         fabs(vz));
  /* the settling is damped (critical-ish: c k d^n 3/2 against m): after 3 s the residual motion
   * is far below 1e-9 of the depth; rtol 1e-10 bounds the rest */
  assert_true(fabs((0.1 - z) - d) <= 1e-8 * d);
  assert_budget(sim, 1e-7);
  hg_sim_free(sim);
  hg_scene_free(s);
  hg_test_remove_dir(dir);
}

/* exit speed of a sphere (mass m) that meets the ground at speed v0, by RK4 on the same law:
 * m x'' = -m g + k d^n (1 + 3/2 c d'), d = -x (x the height of the sphere's bottom), until x > 0 */
static double exit_speed(double m, double k, double n, double c, double v0, double g) {
  double x = 0, v = -v0, h = 1e-7;
  for (int it = 0; it < 100000000; it++) {
    double y[2] = {x, v}, kx[4], kv[4];
    for (int st = 0; st < 4; st++) {
      double a = st == 0 ? 0 : st == 3 ? 1 : 0.5;
      double xs = y[0] + (st ? a * h * kx[st - 1] : 0), vs = y[1] + (st ? a * h * kv[st - 1] : 0);
      double d = -xs, F = d > 0 ? k * pow(d, n) * (1 + 1.5 * c * (-vs)) : 0;
      kx[st] = vs;
      kv[st] = -g + (F > 0 ? F : 0) / m;
    }
    x += h / 6 * (kx[0] + 2 * kx[1] + 2 * kx[2] + kx[3]);
    v += h / 6 * (kv[0] + 2 * kv[1] + 2 * kv[2] + kv[3]);
    if (x > 0 && v > 0) return sqrt(v * v + 2 * g * x); /* (the speed back at x = 0) */
  }
  return NAN;
}

/* the highest point of the first rebound of the ball dropped from z0: sampled every 1e-4 s after
 * it leaves the ground (the apex of a parabola sampled that finely is off by g h^2 / 8 < 1e-8) */
static double rebound_apex(hg_sim *sim) {
  double z, vz, top = -INFINITY;
  int fell = 0, rising = 0;
  for (double t = 1e-4; t < hg_sim_t_end(sim); t += 1e-4) {
    assert_int_equal(hg_sim_run(sim, t), HG_SIM_OK);
    thing_z(sim, &z, &vz);
    if (vz < -1) fell = 1;
    if (fell && vz > 0 && z > 0.1) rising = 1; /* off the ground again */
    if (rising) {
      top = fmax(top, z);
      if (vz < 0) break;
    }
  }
  return top;
}

/* Dropped from 1 m onto the ground (its bottom falls 0.9 m, v0 = sqrt(2 g 0.9)), the sphere
 * rises to 0.1 + v_out^2 / (2 g), v_out from exit_speed. */
static void bounce_height_matches_restitution(void **state) {
  (void)state;
  const double k = 1e6, cs[] = {0, 0.01, 0.1};
  char dir[256], contact[128];
  assert_int_equal(hg_test_temp_dir("contact_bounce", dir, sizeof dir), 0);
  for (int kc = 0; kc < 3; kc++) {
    snprintf(contact, sizeof contact, "stiffness: %g, dissipation: %g", k, cs[kc]);
    hg_scene *s = ground_scene(dir, ball, contact, "{pos: [0, 0, 1]}", 1.2);
    hg_sim *sim = hg_test_sim(s, NAN, NULL);
    double v0 = sqrt(2 * G * 0.9), vout = exit_speed(1, k, 1.5, cs[kc], v0, G);
    double apex = rebound_apex(sim), expect = 0.1 + vout * vout / (2 * G);
    double e = vout / v0;
    printf("# c = %-5g s/m: apex %.9f m, predicted %.9f m; restitution %.6f (1 - c v0 = %.6f)\n",
           cs[kc], apex, expect, e, 1 - cs[kc] * v0);
    /* CVODE at rtol 1e-10 through a contact of ~2 ms: the exit speed to ~1e-8 relative */
    assert_true(fabs(apex - expect) <= 1e-6 * expect);
    if (cs[kc] == 0) assert_true(fabs(apex - 1) <= 1e-6);
    /* the classical estimate e = 1 - c v0 holds to second order in c v0 */
    double cv = cs[kc] * v0;
    assert_true(fabs(e - (1 - cv)) <= cv * cv + 1e-9);
    assert_budget(sim, 1e-6);
    hg_sim_free(sim);
    hg_scene_free(s);
  }
  hg_test_remove_dir(dir);
}

/* The law's restitution depends on c v alone: hg_contact_restitution (scaled, RK4 at 1/500 of
 * the scaled time) against exit_speed (unscaled, RK4 at 1e-7 s, no gravity) on a 1 kg sphere
 * with k = 1e9 (the same number whatever k and m), and its small-c v expansion
 * e = 1 - c v + O((c v)^2). A scene that asks
 * for restitution 0.8 at its impact speed rebounds to 0.1 + 0.64 x 0.9 m. */
static void restitution_gives_dissipation(void **state) {
  (void)state;
  const double v0 = sqrt(2 * G * 0.9), cvs[] = {0.01, 0.1, 1, 3};
  for (int k = 0; k < 4; k++) {
    double e = hg_contact_restitution(cvs[k], 1.5), e_ref = exit_speed(1, 1e9, 1.5, cvs[k] / v0, v0, 0) / v0;
    printf("# c v = %-4g: restitution %.9f (independent RK4: %.9f)\n", cvs[k], e, e_ref);
    assert_true(fabs(e - e_ref) <= 1e-7);
    if (cvs[k] <= 0.1) assert_true(fabs(e - (1 - cvs[k])) <= cvs[k] * cvs[k]);
  }
  double c = hg_contact_dissipation(0.8, v0, 1.5);
  assert_true(fabs(hg_contact_restitution(c * v0, 1.5) - 0.8) <= 1e-12);

  char dir[256], contact[128];
  assert_int_equal(hg_test_temp_dir("contact_restitution", dir, sizeof dir), 0);
  /* (gravity acts during the 0.6 ms contact: ~g t / v = 1.3e-3 of the exit speed) */
  snprintf(contact, sizeof contact, "stiffness: 1e9, restitution: 0.8, impact_speed: %.17g", v0);
  hg_scene *s = ground_scene(dir, ball, contact, "{pos: [0, 0, 1]}", 1.2);
  hg_sim *sim = hg_test_sim(s, NAN, NULL);
  double apex = rebound_apex(sim), expect = 0.1 + 0.64 * 0.9;
  printf("# restitution 0.8 at %.4f m/s: apex %.6f m, 0.1 + e^2 0.9 = %.6f m\n", v0, apex, expect);
  assert_true(fabs(apex - expect) <= 5e-3 * (expect - 0.1));
  hg_sim_free(sim);
  hg_scene_free(s);
  hg_test_remove_dir(dir);
}

/* impact: impulsive. Dropped from 1 m with restitution 0.8, the ball strikes where the gap is the
 * skin (1e-5 m) at sqrt(2 g (0.9 - skin)), leaves at 0.8 times that and rises to
 * 0.1 + skin + 0.64 (0.9 - skin); each later impact is 0.8 times the one before; it ends resting
 * on the compliant law at the Hertz depth, the energy the impulses removed booked by the budget. */
static void impulsive_bounce(void **state) {
  (void)state;
  char dir[256];
  assert_int_equal(hg_test_temp_dir("contact_impulsive", dir, sizeof dir), 0);
  hg_scene *s = ground_scene(dir, ball,
                             "stiffness: 1e6, dissipation: 10, impact: impulsive, restitution: 0.8",
                             "{pos: [0, 0, 1]}", 1.2);
  hg_sim *sim = hg_test_sim(s, NAN, NULL);
  const double skin = 1e-5, expect = 0.1 + skin + 0.64 * (0.9 - skin);
  double apex = rebound_apex(sim);
  const hg_sim_event *ev = hg_sim_event_at(sim, 0);
  printf("# impulsive: apex %.10f m, expected %.10f m; first event: %s\n", apex, expect,
         ev->details);
  assert_true(fabs(apex - expect) <= 1e-8);
  assert_non_null(strstr(ev->details, "strikes"));
  assert_true(fabs(ev->t - sqrt(2 * (0.9 - skin) / G)) <= 1e-9);
  /* the kinetic energy removed: (1 - e^2) m v^2 / 2 = 0.36 m g (0.9 - skin) */
  assert_true(fabs(ev->e_before - ev->e_after - 0.36 * G * (0.9 - skin)) <= 1e-8);
  hg_sim_free(sim);
  hg_scene_free(s);

  /* to rest: geometric impacts down to min_impact_speed, then the compliant law */
  s = ground_scene(dir, ball, "stiffness: 1e6, dissipation: 10, impact: impulsive, restitution: 0.8",
                   "{pos: [0, 0, 1]}", 6);
  sim = hg_test_sim(s, NAN, NULL);
  assert_int_equal(hg_sim_run(sim, INFINITY), HG_SIM_OK);
  int n = hg_sim_nevents(sim), strikes = 0;
  double prev = NAN;
  for (int k = 0; k < n; k++) {
    const char *d = strstr(hg_sim_event_at(sim, k)->details, " at ");
    double v = d ? atof(d + 4) : NAN;
    if (!strstr(hg_sim_event_at(sim, k)->details, "strikes")) continue;
    /* (the impact time, hence speed, of a slow bounce carries the position error over its
     * speed: 3e-8 m/s measured at 1 mm/s with atol 1e-12) */
    if (strikes++) assert_true(fabs(v - 0.8 * prev) <= 1e-7);
    prev = v;
  }
  double z, vz;
  thing_z(sim, &z, &vz);
  printf("# impulsive: %d impacts, each 0.8 of the last; at rest at depth %.6g m ((mg/k)^(2/3) = "
         "%.6g)\n", strikes, 0.1 - z, pow(G / 1e6, 2.0 / 3));
  assert_true(strikes > 30);
  assert_true(fabs((0.1 - z) - pow(G / 1e6, 2.0 / 3)) <= 1e-9);
  assert_budget(sim, 1e-8);
  hg_sim_free(sim);
  hg_scene_free(s);
  hg_test_remove_dir(dir);
}

/* Two free 1 kg spheres meet head on at 1 m/s each with restitution 0.5: they leave at 0.5 m/s
 * each, momentum unchanged, (1 - e^2) mu v_rel^2 / 2 = 0.75 J removed (mu = 0.5 kg, v_rel = 2). */
static void impulsive_head_on(void **state) {
  (void)state;
  char dir[256];
  assert_int_equal(hg_test_temp_dir("contact_head_on", dir, sizeof dir), 0);
  hg_scene *s = two_spheres(dir, "stiffness: 1e6, impact: impulsive, restitution: 0.5",
                            "{pos: [0, 0, 0], twist: [0, 0, 0, 1, 0, 0]}",
                            "{pos: [0.5, 0, 0], twist: [0, 0, 0, -1, 0, 0]}", 0.5);
  hg_sim *sim = hg_test_sim(s, NAN, NULL);
  assert_int_equal(hg_sim_run(sim, INFINITY), HG_SIM_OK);
  assert_int_equal(hg_sim_nevents(sim), 1);
  const hg_sim_event *ev = hg_sim_event_at(sim, 0);
  hg_se3 T;
  double ta[6], tb[6];
  hg_sim_body(sim, hg_model_body(hg_sim_model(sim), "a"), &T, ta);
  hg_sim_body(sim, hg_model_body(hg_sim_model(sim), "b"), &T, tb);
  printf("# head on: %s; after: %.15f and %.15f m/s, momentum change %.2g, %.12f J removed\n",
         ev->details, ta[3], tb[3], hg_sim_event_momentum_change(ev), ev->e_before - ev->e_after);
  assert_true(fabs(ev->t - (0.3 - HG_CONTACT_SKIN) / 2) <= 1e-9);
  assert_true(fabs(ta[3] + 0.5) <= 1e-12 && fabs(tb[3] - 0.5) <= 1e-12);
  assert_true(ev->conserves && hg_sim_event_momentum_change(ev) <= 1e-15);
  assert_true(fabs(ev->e_before - ev->e_after - 0.75) <= 1e-12);
  hg_sim_free(sim);
  hg_scene_free(s);
  hg_test_remove_dir(dir);
}

/* A 2 kg box 0.4 x 0.4 x 0.2 m launched along x at 2 m/s on its face, mu = 0.5: Coulomb friction
 * decelerates it at mu g, so it stops after v0^2 / (2 mu g) = 0.4077 m at t = v0 / (mu g). */
static void box_slides_to_coulomb_distance(void **state) {
  (void)state;
  const double m = 2, k = 1e7, mu = 0.5, v0 = 2;
  char dir[256], init[160];
  assert_int_equal(hg_test_temp_dir("contact_slide", dir, sizeof dir), 0);
  const char box[] =
      "  - name: thing\n"
      "    joint: free\n"
      "    inertia: {mass: 2, inertia: [0.0333, 0.0333, 0.0533]}\n"
      "    geometry: [{type: box, size: [0.4, 0.4, 0.2], collision: true}]\n";
  /* start at rest vertically: four corners each carrying m g / 4 */
  double d = pow(m * G / (4 * k), 2.0 / 3);
  snprintf(init, sizeof init, "{pos: [0, 0, %.17g], twist: [0, 0, 0, %g, 0, 0]}", 0.1 - d, v0);
  hg_scene *s = ground_scene(dir, box,
                             "stiffness: 1e7, dissipation: 2, friction: 0.5, "
                             "stiction_velocity: 1e-4",
                             init, 1);
  hg_sim *sim = hg_test_sim(s, NAN, NULL);
  double t_stop = v0 / (mu * G), x_stop = v0 * v0 / (2 * mu * G), t_seen = NAN;
  hg_se3 T;
  double tw[6];
  int thing = hg_model_body(hg_sim_model(sim), "thing");
  for (double t = 1e-3; t <= 1 + 1e-12; t += 1e-3) {
    assert_int_equal(hg_sim_run(sim, t), HG_SIM_OK);
    hg_sim_body(sim, thing, &T, tw);
    if (isnan(t_seen) && tw[3] < 1e-3) t_seen = t;
  }
  printf("# box: slid %.6f m (v0^2/(2 mu g) = %.6f m), below 1 mm/s at %.3f s (v0/(mu g) = "
         "%.4f s), tilt %.2g rad\n",
         T.p[0], x_stop, t_seen, t_stop, sqrt(T.R[1] * T.R[1] + T.R[2] * T.R[2] + T.R[5] * T.R[5]));
  /* the friction law is exact above the stiction velocity (1e-4 m/s); below it the box creeps
   * for ~v_s / (mu g) = 2e-5 s. The manifold's four corners keep it level; what remains is the
   * transient of the compliant layer (depth 8e-5 m): 1e-4 relative covers it */
  assert_true(fabs(T.p[0] - x_stop) <= 1e-4 * x_stop);
  assert_true(fabs(t_seen - t_stop) <= 2e-3);
  assert_true(fabs(tw[3]) <= 1e-6);
  assert_budget(sim, 1e-6);
  hg_sim_free(sim);
  hg_scene_free(s);
  hg_test_remove_dir(dir);
}

/* total momentum of the free spheres a and b (com at their origins, isotropic inertia I) */
static void momentum(hg_sim *sim, double mass, double I, double h[6]) {
  const hg_model *m = hg_sim_model(sim);
  memset(h, 0, 6 * sizeof(double));
  for (int i = 1; i < m->nbody; i++) {
    hg_se3 T;
    double tw[6], p[3], L[3];
    hg_sim_body(sim, i, &T, tw);
    for (int r = 0; r < 3; r++) p[r] = mass * tw[3 + r];
    hg_v3_cross(T.p, p, L);
    for (int r = 0; r < 3; r++) h[r] += L[r] + I * tw[r], h[3 + r] += p[r];
  }
}

/* Two 1 kg spheres (r = 0.1 m), one spinning, meet off-centre in zero gravity with friction and
 * dissipation: contact forces are equal and opposite at one point, so the total momentum holds. */
static void oblique_strike_keeps_momentum(void **state) {
  (void)state;
  char dir[256];
  assert_int_equal(hg_test_temp_dir("contact_strike", dir, sizeof dir), 0);
  hg_scene *s = two_spheres(dir,
                            "stiffness: 1e6, dissipation: 0.3, friction: 0.4, "
                            "stiction_velocity: 1e-3",
                            "{pos: [0, 0, 0], twist: [0, 0, 20, 1, 0, 0]}",
                            "{pos: [0.5, 0.12, 0.03], twist: [0, 0, 0, -1, 0, 0]}", 0.5);
  hg_sim *sim = hg_test_sim(s, NAN, NULL);
  double h0[6], h1[6], tw[6];
  hg_se3 T;
  momentum(sim, 1, 0.004, h0);
  assert_int_equal(hg_sim_run(sim, INFINITY), HG_SIM_OK);
  momentum(sim, 1, 0.004, h1);
  hg_sim_body(sim, hg_model_body(hg_sim_model(sim), "b"), &T, tw);
  printf("# strike: b leaves at (%.4f, %.4f, %.4f) m/s spinning %.4f rad/s; momentum change "
         "%.2g (angular) %.2g (linear)\n",
         tw[3], tw[4], tw[5], tw[2], fabs(h1[2] - h0[2]), fabs(h1[3] - h0[3]));
  /* the strike happened: b was deflected and set spinning by friction */
  assert_true(fabs(tw[4]) > 0.05 && fabs(tw[2]) > 0.1);
  /* momentum: integration error only (rtol 1e-10 on quantities of order 1) */
  for (int r = 0; r < 6; r++) assert_true(fabs(h1[r] - h0[r]) <= 1e-8);
  assert_budget(sim, 1e-6);
  hg_sim_free(sim);
  hg_scene_free(s);
  hg_test_remove_dir(dir);
}

/* A ball at 30 m/s towards a 1 cm plate: an unbounded step would carry it through (free flight
 * is a polynomial CVODE integrates exactly in one step); the contact step bound makes it bounce. */
static void fast_ball_does_not_tunnel(void **state) {
  (void)state;
  char dir[256];
  assert_int_equal(hg_test_temp_dir("contact_tunnel", dir, sizeof dir), 0);
  static const char text[] =
      "gravity: [0, 0, 0]\n"
      "bodies:\n"
      "  - {name: plate, joint: fixed, inertia: {mass: 1, inertia: [1, 1, 1]},\n"
      "     geometry: [{type: box, size: [1, 1, 0.01], collision: true}]}\n"
      "  - {name: thing, joint: free, inertia: {mass: 1, inertia: [0.004, 0.004, 0.004]},\n"
      "     geometry: [{type: sphere, radius: 0.02, collision: true}]}\n"
      "forces:\n"
      "  - {name: hit, type: contact, between: [thing, plate], stiffness: 1e8}\n"
      "initial:\n"
      "  bodies: {thing: {pos: [0, 0, 3], twist: [0, 0, 0, 0, 0, -30]}}\n"
      "integrator: {method: cvode-bdf, rtol: 1e-8}\n"
      "time: {start: 0, end: 0.2}\n"
      "output: {dt: 0.05}\n";
  hg_scene *s = hg_test_scene_text(dir, "tunnel.yaml", text);
  hg_sim *sim = hg_test_sim(s, NAN, NULL);
  assert_int_equal(hg_sim_run(sim, INFINITY), HG_SIM_OK);
  double z, vz;
  thing_z(sim, &z, &vz);
  printf("# fast ball: ends at z = %.4f m moving at %.4f m/s (bounced back at 30 m/s)\n", z, vz);
  assert_true(z > 0 && fabs(vz - 30) <= 1e-4 * 30);
  hg_sim_free(sim);
  hg_scene_free(s);
  hg_test_remove_dir(dir);
}

/* A 0.4 x 0.2 x 0.1 box sunk 1 mm into a slab: FCL's box-box manifold gives its four bottom
 * corners, each 1 mm deep, normals from the box into the slab. */
static void box_manifold_has_four_corners(void **state) {
  (void)state;
  char dir[256];
  assert_int_equal(hg_test_temp_dir("contact_manifold", dir, sizeof dir), 0);
  hg_scene *s = ground_scene(dir,
                             "  - name: thing\n"
                             "    joint: free\n"
                             "    inertia: {mass: 1, inertia: [0.01, 0.01, 0.01]}\n"
                             "    geometry: [{type: box, size: [0.4, 0.2, 0.1], collision: true}]\n",
                             "stiffness: 1e5", "{pos: [0.3, 0.1, 0.049]}", 1);
  hg_error err;
  hg_model *m = hg_builder_compile(s->builder, &err);
  hg_data *d = hg_data_new(m);
  hg_collision *c = hg_collision_new(m, &err);
  assert_non_null(c);
  double q[16], v[16] = {0};
  hg_model_neutral(m, q);
  int thing = hg_model_body(m, "thing"), ground = hg_model_body(m, "ground");
  double *qt = q + m->q_adr[thing];
  qt[0] = 0.3, qt[1] = 0.1, qt[2] = 0.049;
  hg_kinematics(m, d, q, v);
  const hg_contact *ct;
  int n = hg_collision_contacts(c, m, d->T_world, &thing, 1, &ground, 1, NULL, 0, NULL, 0, &ct);
  assert_int_equal(n, 4);
  for (int k = 0; k < n; k++) {
    assert_true(fabs(ct[k].depth - 1e-3) <= 1e-12);
    assert_true(fabs(ct[k].normal[2] + 1) <= 1e-12);
    assert_true(fabs(fabs(ct[k].pos[0] - 0.3) - 0.2) <= 1e-12);
    assert_true(fabs(fabs(ct[k].pos[1] - 0.1) - 0.1) <= 1e-12);
    assert_true(fabs(ct[k].pos[2] + 0.5e-3) <= 1e-12);
  }
  /* a body never touches its parent, nor a pair it skips */
  int skip[2] = {ground, thing};
  assert_int_equal(hg_collision_contacts(c, m, d->T_world, &thing, 1, &ground, 1, skip, 1, NULL, 0,
                                         &ct), 0);
  /* a pile (the same bodies on both sides) meets each pair once: thing-ground, not twice */
  int both[2] = {thing, ground};
  assert_int_equal(
      hg_collision_contacts(c, m, d->T_world, both, 2, both, 2, NULL, 0, NULL, 0, &ct), 4);
  hg_collision_free(c);
  hg_data_free(d);
  hg_model_free(m);
  hg_scene_free(s);
  hg_test_remove_dir(dir);
}

/* a contact element whose side has no collision shape could never act: the simulation refuses it
 * with the element's file:line:column */
static void shapeless_side_is_an_error(void **state) {
  (void)state;
  char dir[256];
  assert_int_equal(hg_test_temp_dir("contact_shapeless", dir, sizeof dir), 0);
  hg_scene *s = ground_scene(dir,
                             "  - name: thing\n"
                             "    joint: free\n"
                             "    inertia: {mass: 1, inertia: [0.004, 0.004, 0.004]}\n"
                             "    geometry: [{type: sphere, radius: 0.1}]\n",
                             "stiffness: 1e6", "{pos: [0, 0, 1]}", 1);
  hg_sim_options opt;
  hg_error err;
  hg_sim_default_options(&opt);
  hg_sim *sim = hg_sim_new(s, &opt, &err);
  assert_null(sim);
  printf("# %s\n", err.msg);
  assert_non_null(strstr(err.msg, "contact.yaml:12:"));
  assert_non_null(strstr(err.msg, "first side (thing) have no collision shape"));
  hg_scene_free(s);
  hg_test_remove_dir(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(box_manifold_has_four_corners),
      cmocka_unit_test(sphere_rests_at_hertz_depth),
      cmocka_unit_test(bounce_height_matches_restitution),
      cmocka_unit_test(restitution_gives_dissipation),
      cmocka_unit_test(impulsive_bounce),
      cmocka_unit_test(impulsive_head_on),
      cmocka_unit_test(box_slides_to_coulomb_distance),
      cmocka_unit_test(oblique_strike_keeps_momentum),
      cmocka_unit_test(fast_ball_does_not_tunnel),
      cmocka_unit_test(shapeless_side_is_an_error),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
