/* test_campaign.c: Monte Carlo campaigns: the Philox generator against its published test
 * vectors, the sample statistics of each distribution against their definitions, scene values
 * replaced by path, and draws that depend only on (seed, run, parameter). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "campaign.h"
#include "scene.h"
#include "spatial.h"
#include "stream.h"

/* Philox4x32-10 known answers (Random123's kat_vectors: counter, key, result) */
static void philox_vectors(void **state) {
  (void)state;
  static const uint32_t kat[3][10] = {
      {0, 0, 0, 0, 0, 0, 0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8},
      {0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0x408f276d,
       0x41c83b0e, 0xa20bc7c6, 0x6d5451fd},
      {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822, 0x299f31d0, 0xd16cfe09,
       0x94fdcceb, 0x5001e420, 0x24126ea1}};
  for (int k = 0; k < 3; k++) {
    uint32_t out[4];
    hg_philox4x32(kat[k], kat[k] + 4, out);
    for (int i = 0; i < 4; i++) assert_int_equal(out[i], kat[k][6 + i]);
  }
}

/* sample mean and variance of n draws of f */
static void moments(double (*f)(hg_stream *), uint64_t seed, int n, double *mean, double *var) {
  hg_stream r;
  double s = 0, ss = 0;
  hg_stream_init(&r, seed, 0, 0);
  for (int k = 0; k < n; k++) {
    double x = f(&r);
    s += x, ss += x * x;
  }
  *mean = s / n;
  *var = ss / n - *mean * *mean;
}

/* Uniform on [0,1): mean 1/2, variance 1/12; standard normal: mean 0, variance 1. With n = 200000
 * the standard errors of the mean are 6.5e-4 (uniform) and 2.2e-3 (normal) and of the variance
 * 1.9e-4 and 3.2e-3 (sqrt((mu4 - sigma^4)/n)); the tolerances are 5 standard errors, so a correct
 * generator fails with probability below 1e-6 while a wrong scale (Box-Muller's sqrt(2) missed,
 * a half-open range off by a bit) is caught. */
static void distribution_moments(void **state) {
  (void)state;
  const int n = 200000;
  double m, v;
  moments(hg_stream_uniform, 12345, n, &m, &v);
  assert_true(fabs(m - 0.5) < 5 * 6.5e-4);
  assert_true(fabs(v - 1.0 / 12) < 5 * 1.9e-4);
  moments(hg_stream_normal, 12345, n, &m, &v);
  assert_true(fabs(m) < 5 * 2.2e-3);
  assert_true(fabs(v - 1) < 5 * 3.2e-3);
  /* tails of the normal: P(|z| > 2) = 0.0455, standard error sqrt(p(1-p)/n) = 4.7e-4 */
  hg_stream r;
  int tail = 0;
  hg_stream_init(&r, 99, 3, 1);
  for (int k = 0; k < n; k++) tail += fabs(hg_stream_normal(&r)) > 2;
  assert_true(fabs((double)tail / n - 0.0455003) < 5 * 4.7e-4);
}

/* a campaign over the test scene, as the dispersions a test needs */
static hg_campaign *campaign(void) {
  hg_error err;
  hg_campaign *c = hg_campaign_load("data/campaigns/small.yaml", &err);
  if (!c) fail_msg("%s", err.msg);
  return c;
}

/* The campaign's draws: a truncated normal stays in its bounds with the truncated moments, a
 * uniform fills its interval, a list picks its values equally often. 20000 runs: standard errors
 * of the means 0.01/sqrt(n)*~0.88 = 6e-5 (the normal truncated at 2 sigma has std 0.88 sigma),
 * 40/sqrt(12 n) = 0.082 (uniform); tolerances 5 standard errors. */
static void campaign_distributions(void **state) {
  (void)state;
  hg_campaign *c = campaign();
  const int n = 20000;
  double v[3], s[3] = {0}, ss[3] = {0}, lo1 = INFINITY, hi1 = -INFINITY;
  for (int k = 0; k < n; k++) {
    hg_campaign_draw(c, k, v);
    for (int j = 0; j < 3; j++) s[j] += v[j], ss[j] += v[j] * v[j];
    lo1 = fmin(lo1, v[1]), hi1 = fmax(hi1, v[1]);
    assert_true(v[2] >= 2480 && v[2] < 2520);
  }
  /* the normal about the scene's nominal stiffness, 36000, std 1800 */
  double m0 = s[0] / n, sd0 = sqrt(ss[0] / n - m0 * m0);
  assert_true(fabs(m0 - 36000) < 5 * 1800 / sqrt(n));
  assert_true(fabs(sd0 - 1800) < 5 * 1800 / sqrt(2.0 * n));
  /* the normal truncated to [-2, 2] sigma: std sigma sqrt(1 - 2*2 phi(2)/(2 Phi(2) - 1)) */
  assert_true(lo1 >= -0.02 && hi1 <= 0.02 && lo1 < -0.019 && hi1 > 0.019);
  double m1 = s[1] / n, sd1 = sqrt(ss[1] / n - m1 * m1);
  double phi2 = exp(-2.0) / sqrt(2 * 3.14159265358979323846), Z = erf(2 / sqrt(2.0));
  double sd_trunc = 0.01 * sqrt(1 - 4 * phi2 / Z);
  assert_true(fabs(m1) < 5 * sd_trunc / sqrt(n));
  assert_true(fabs(sd1 - sd_trunc) < 5 * sd_trunc / sqrt(2.0 * n));
  /* the uniform: mean 2500, std 40/sqrt(12) */
  double m2 = s[2] / n, sd2 = sqrt(ss[2] / n - m2 * m2);
  assert_true(fabs(m2 - 2500) < 5 * 40 / sqrt(12.0 * n));
  assert_true(fabs(sd2 - 40 / sqrt(12.0)) < 0.02 * 40 / sqrt(12.0));
  hg_campaign_free(c);
}

/* list values: each of two equally often (binomial standard error sqrt(n/4)) */
static void campaign_list(void **state) {
  (void)state;
  hg_error err;
  hg_campaign *c = hg_campaign_load("data/campaigns/failing.yaml", &err);
  if (!c) fail_msg("%s", err.msg);
  const int n = 10000;
  int neg = 0;
  double v;
  for (int k = 0; k < n; k++) {
    hg_campaign_draw(c, k, &v);
    assert_true(v == 300 || v == -5);
    neg += v < 0;
  }
  assert_true(fabs(neg - n / 2.0) < 5 * sqrt(n / 4.0));
  hg_campaign_free(c);
}

/* run k's values do not depend on which runs were drawn before, nor on the order */
static void draws_per_run(void **state) {
  (void)state;
  hg_campaign *c = campaign();
  double a[3], b[3], x[3];
  hg_campaign_draw(c, 5, a);
  for (int k = 40; k >= 0; k--) hg_campaign_draw(c, k, x);
  hg_campaign_draw(c, 5, b);
  assert_memory_equal(a, b, sizeof a);
  hg_campaign_draw(c, 6, b);
  assert_true(a[0] != b[0]);
  c->seed++;
  hg_campaign_draw(c, 5, b);
  assert_true(a[0] != b[0]);
  hg_campaign_free(c);
}

/* a value replaced by path reaches the scene; bad paths name the scene and the reason */
static void scene_overrides(void **state) {
  (void)state;
  hg_error err;
  hg_scene_override ov[2] = {{"forces.pushoff_2.stiffness", 40000.5},
                             {"bodies.shield.inertia.com.2", -0.125}};
  hg_scene *s = hg_scene_load_overrides("../scenes/heatshield.yaml", ov, 2, &err);
  if (!s) fail_msg("%s", err.msg);
  const hg_force_spec *f = hg_scene_force(s, "pushoff_2");
  assert_non_null(f);
  assert_true(f->stiffness == 40000.5);
  hg_scene_free(s);
  double v;
  assert_int_equal(hg_scene_value("../scenes/heatshield.yaml", "bodies.shield.inertia.com.2", &v,
                                  &err), 0);
  assert_true(v == -0.1);
  hg_scene_override bad = {"bodies.shield.inertia.mas", 1};
  assert_null(hg_scene_load_overrides("../scenes/heatshield.yaml", &bad, 1, &err));
  assert_non_null(strstr(err.msg, "no 'mas' (did you mean 'mass'?) in the mapping at "
                                  "../scenes/heatshield.yaml:37"));
  hg_scene_override neg = {"bodies.shield.inertia.mass", -1};
  assert_null(hg_scene_load_overrides("../scenes/heatshield.yaml", &neg, 1, &err));
  assert_non_null(strstr(err.msg, "heatshield.yaml:37"));
  hg_scene_override nonum = {"bodies.shield.joint.type", 1};
  assert_null(hg_scene_load_overrides("../scenes/heatshield.yaml", &nonum, 1, &err));
  assert_non_null(strstr(err.msg, "is not a number"));
}

/* A rotation: its three components are normal with the given standard deviation (5 standard
 * errors, as above), and the scene read with its overrides holds R0 exp(phi) to rounding (the
 * rpy_deg written with %.17g). */
static void rotation_dispersion(void **state) {
  (void)state;
  hg_error err;
  hg_campaign *c = hg_campaign_load("data/campaigns/rotation.yaml", &err);
  if (!c) fail_msg("%s", err.msg);
  assert_int_equal(c->ndisp, 3);
  const int n = 20000;
  double v[3], ss[3] = {0};
  for (int k = 0; k < n; k++) {
    hg_campaign_draw(c, k, v);
    for (int a = 0; a < 3; a++) ss[a] += v[a] * v[a];
  }
  for (int a = 0; a < 3; a++) assert_true(fabs(sqrt(ss[a] / n) - 2) < 5 * 2 / sqrt(2.0 * n));
  /* run 3's attitude */
  hg_scene_override ov[7];
  double E[9], R[9], phi[3];
  hg_campaign_draw(c, 3, v);
  int nov = hg_campaign_overrides(c, v, ov);
  assert_int_equal(nov, 3);
  hg_scene *s0 = hg_scene_load("../scenes/dock.yaml", &err);
  hg_scene *s1 = hg_scene_load_overrides("../scenes/dock.yaml", ov, nov, &err);
  if (!s0 || !s1) fail_msg("%s", err.msg);
  const double *R0 = s0->binit[1].pose.R, *R1 = s1->binit[1].pose.R;
  assert_string_equal(s1->binit[1].body, "chaser");
  for (int a = 0; a < 3; a++) phi[a] = v[a] * 3.14159265358979323846 / 180;
  hg_so3_exp(phi, E);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      R[3 * i + j] = R0[3 * i] * E[j] + R0[3 * i + 1] * E[3 + j] + R0[3 * i + 2] * E[6 + j];
      assert_true(fabs(R1[3 * i + j] - R[3 * i + j]) < 1e-14);
    }
  hg_scene_free(s0);
  hg_scene_free(s1);
  hg_campaign_free(c);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(philox_vectors),       cmocka_unit_test(distribution_moments),
      cmocka_unit_test(campaign_distributions), cmocka_unit_test(campaign_list),
      cmocka_unit_test(draws_per_run),        cmocka_unit_test(scene_overrides),
      cmocka_unit_test(rotation_dispersion),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
