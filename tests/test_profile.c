/* test_profile.c: motion profiles of prescribed joints. Every kind on every moving joint type is
 * checked for consistency of q, v and vdot by central differences on the group, for its boundary
 * values, for staying on the group, and the model-level helper for writing the right slices. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dense.h"
#include "models.h"
#include "profile.h"

#define PI 3.14159265358979323846
#define NSEEDS 20 /* random profiles per kind and joint type */

/* the joint types that move */
static const hg_joint_type types[] = {HG_JOINT_REVOLUTE,  HG_JOINT_PRISMATIC, HG_JOINT_HELICAL,
                                      HG_JOINT_CYLINDRICAL, HG_JOINT_UNIVERSAL, HG_JOINT_PLANAR,
                                      HG_JOINT_SPHERICAL, HG_JOINT_FREE};
#define NTYPES ((int)(sizeof types / sizeof types[0]))

/* the profiles under test; SPLINE_SMALL keeps every rotation below 1 rad (the series branch of the
 * J_r derivative), SPLINE swings through large ones */
enum { HOLD, VELOCITY, MOVE, SINUSOID, SPLINE, SPLINE_SMALL, NKINDS };
static const char *kind_name[NKINDS] = {"hold", "velocity", "move", "sinusoid", "spline",
                                        "spline (small)"};

#define NSAMPLE 6

/* a profile under test and the times where it is not smooth (q is C2 except there) */
typedef struct {
  hg_joint j;
  hg_profile *p;
  double q0[HG_JOINT_MAXNQ], q1[HG_JOINT_MAXNQ];
  double times[NSAMPLE], qs[NSAMPLE * HG_JOINT_MAXNQ];
  int nbreak;
  double brk[NSAMPLE];
  double tlo, thi; /* the interval to test */
} case_t;

static hg_joint make_joint(hg_joint_type type) {
  static const double z[3] = {0, 0, 1}, x[3] = {1, 0, 0};
  const char *why = NULL;
  hg_joint j;
  assert_int_equal(hg_joint_init(&j, type, z, x, 0.1, &why), 0);
  return j;
}

/* a random profile of the given kind */
static case_t make_case(int kind, hg_joint_type type, hg_rng *r) {
  case_t c;
  const char *why = NULL;
  double dv[HG_JOINT_MAXNV];
  memset(&c, 0, sizeof c);
  c.j = make_joint(type);
  int nq = hg_joint_nq(type), nv = hg_joint_nv(type);
  hg_joint_random(&c.j, r, c.q0);
  hg_joint_random(&c.j, r, c.q1);
  hg_test_random_vector(r, dv, nv, -2, 2);
  double t0 = hg_rng_range(r, -1, 1);
  c.tlo = t0 - 0.5;
  c.thi = t0 + 3;
  switch (kind) {
  case HOLD:
    c.p = hg_profile_hold(&c.j, t0, c.q0, &why);
    break;
  case VELOCITY:
    c.p = hg_profile_velocity(&c.j, t0, c.q0, dv, &why);
    break;
  case MOVE: {
    double T = hg_rng_range(r, 0.5, 2);
    c.p = hg_profile_move(&c.j, t0, c.q0, c.q1, T, &why);
    c.nbreak = 2;
    c.brk[0] = t0;
    c.brk[1] = t0 + T;
    break;
  }
  case SINUSOID:
    c.p = hg_profile_sinusoid(&c.j, t0, c.q0, dv, hg_rng_range(r, 0.5, 4), hg_rng_range(r, -PI, PI),
                              &why);
    break;
  default: {
    /* samples: a random walk on the group, steps up to 1 rad (0.1 rad when small) */
    double step = kind == SPLINE ? 1 : 0.1;
    hg_joint_neutral(&c.j, c.qs);
    if (kind == SPLINE) memcpy(c.qs, c.q0, (size_t)nq * sizeof(double));
    c.times[0] = t0;
    for (int k = 1; k < NSAMPLE; k++) {
      c.times[k] = c.times[k - 1] + hg_rng_range(r, 0.3, 0.8);
      hg_test_random_vector(r, dv, nv, -step, step);
      hg_joint_integrate(&c.j, c.qs + nq * (k - 1), dv, 1, c.qs + nq * k);
    }
    c.p = hg_profile_spline(&c.j, NSAMPLE, c.times, c.qs, &why);
    c.nbreak = NSAMPLE;
    memcpy(c.brk, c.times, sizeof c.times);
    c.thi = c.times[NSAMPLE - 1] + 0.5;
    break;
  }
  }
  if (!c.p) fprintf(stderr, "profile: %s\n", why);
  assert_non_null(c.p);
  return c;
}

/* a test time in [tlo, thi] at least 5e-3 away from every break (beyond the differences' 2h) */
static double smooth_time(const case_t *c, hg_rng *r) {
  for (;;) {
    double t = hg_rng_range(r, c->tlo, c->thi);
    int ok = 1;
    for (int b = 0; b < c->nbreak; b++)
      if (fabs(t - c->brk[b]) < 5e-3) ok = 0;
    if (ok) return t;
  }
}

/* max_i |x_i| */
static double norm_inf(const double *x, int n) {
  double m = 0;
  for (int i = 0; i < n; i++) m = fmax(m, fabs(x[i]));
  return m;
}

/* Fourth-order central differences with h = 5e-4, on the group:
 *   v ~ (8 D(h) - D(2h)) / 12h,  D(h) = q(t+h) (-) q(t-h),
 *   vdot ~ (8 (v(t+h) - v(t-h)) - (v(t+2h) - v(t-2h))) / 12h.
 * D(h) is odd in h (swapping h and -h inverts q(t-h)^-1 q(t+h)), so D(h)/2h = v + O(h^2) + O(h^4)
 * and the combination cancels the h^2 term, also on SO(3) and SE(3). Truncation is h^4/30 |x^(5)|
 * = 2e-15 |x^(5)|; the largest |x^(5)| here is the move's 720/T^5 |dq| <= 1.5e5 (T >= 0.5,
 * |dq| <= 2 pi), so < 3e-10. Round-off is about 1.5 eps |q| / h ~ 4e-12 (|q| up to 2 pi). The
 * error max|fd - exact| / max(1, |exact|) is required below 1e-8, a wide margin over both and far
 * below any formula error (an O(1) fraction of the rates, e.g. a dropped J_r derivative term). */
static void fd_errors(const case_t *c, double t, double *ev, double *ea) {
  const double h = 5e-4;
  int nv = hg_joint_nv(c->j.type);
  double q[HG_JOINT_MAXNQ], v[HG_JOINT_MAXNV], a[HG_JOINT_MAXNV];
  double fv[HG_JOINT_MAXNV], fa[HG_JOINT_MAXNV];
  double qm[2][HG_JOINT_MAXNQ], qp[2][HG_JOINT_MAXNQ], vm[2][HG_JOINT_MAXNV], vp[2][HG_JOINT_MAXNV];
  double D[2][HG_JOINT_MAXNV];
  hg_profile_eval(c->p, t, q, v, a);
  for (int k = 0; k < 2; k++) {
    hg_profile_eval(c->p, t - (k + 1) * h, qm[k], vm[k], NULL);
    hg_profile_eval(c->p, t + (k + 1) * h, qp[k], vp[k], NULL);
    hg_joint_difference(&c->j, qm[k], qp[k], D[k]);
  }
  for (int i = 0; i < nv; i++) {
    fv[i] = (8 * D[0][i] - D[1][i]) / (12 * h);
    fa[i] = (8 * (vp[0][i] - vm[0][i]) - (vp[1][i] - vm[1][i])) / (12 * h);
  }
  *ev = hg_test_rel_err(fv, v, nv);
  *ea = hg_test_rel_err(fa, a, nv);
}

/* v and vdot agree with central differences of q and v, for every kind and joint type */
static void rates_match_differences(void **state) {
  hg_rng r;
  hg_rng_seed(&r, 11);
  for (int kind = 0; kind < NKINDS; kind++) {
    double wv = 0, wa = 0;
    for (int ti = 0; ti < NTYPES; ti++)
      for (int s = 0; s < NSEEDS; s++) {
        case_t c = make_case(kind, types[ti], &r);
        for (int n = 0; n < 25; n++) {
          double ev, ea;
          fd_errors(&c, smooth_time(&c, &r), &ev, &ea);
          if (!(ev <= 1e-8) || !(ea <= 1e-8))
            fprintf(stderr, "%s on %s: v error %.3g, vdot error %.3g\n", kind_name[kind],
                    hg_joint_type_name(types[ti]), ev, ea);
          wv = fmax(wv, ev);
          wa = fmax(wa, ea);
        }
        hg_profile_free(c.p);
      }
    printf("# %-14s: worst relative FD error v %.3g, vdot %.3g\n", kind_name[kind], wv, wa);
    assert_true(wv < 1e-8);
    assert_true(wa < 1e-8);
  }
}

/* group distance |q1 (-) q0|_inf */
static double distance(const hg_joint *j, const double *q0, const double *q1) {
  double d[HG_JOINT_MAXNV];
  hg_joint_difference(j, q0, q1, d);
  return norm_inf(d, hg_joint_nv(j->type));
}

/* a move starts at q0 and ends at q1, at rest at both ends, and holds outside */
static void move_boundaries(void **state) {
  hg_rng r;
  hg_rng_seed(&r, 12);
  double worst = 0;
  for (int ti = 0; ti < NTYPES; ti++)
    for (int s = 0; s < NSEEDS; s++) {
      case_t c = make_case(MOVE, types[ti], &r);
      int nq = c.p->nq, nv = c.p->nv;
      double t0 = c.brk[0], t1 = c.brk[1], q[HG_JOINT_MAXNQ], v[HG_JOINT_MAXNV], a[HG_JOINT_MAXNV];
      /* at and before the start: exactly q0, at rest */
      const double before[3] = {t0 - 1, t0 - 0.5, t0}, after[3] = {t1, t1 + 0.5, t1 + 1};
      for (int n = 0; n < 3; n++) {
        hg_profile_eval(c.p, before[n], q, v, a);
        assert_memory_equal(q, c.p->q0, (size_t)nq * sizeof(double));
        assert_true(norm_inf(v, nv) == 0 && norm_inf(a, nv) == 0);
      }
      assert_true(distance(&c.j, c.q0, c.p->q0) < 1e-15);
      /* at and after the end: q1 and at rest (to rounding: t0 + T - t0 may differ from T) */
      for (int n = 0; n < 3; n++) {
        hg_profile_eval(c.p, after[n], q, v, a);
        worst = fmax(worst, distance(&c.j, c.q1, q));
        assert_true(norm_inf(v, nv) < 1e-12 && norm_inf(a, nv) < 1e-12);
      }
      /* in between it moves */
      hg_profile_eval(c.p, 0.5 * (t0 + t1), q, v, a);
      assert_true(norm_inf(v, nv) > 0);
      hg_profile_free(c.p);
    }
  printf("# move: worst |q(t0 + T) (-) q1| = %.3g\n", worst);
  assert_true(worst < 1e-12);
}

/* hold is constant and at rest; velocity and sinusoid start at q0 */
static void hold_velocity_sinusoid_start(void **state) {
  hg_rng r;
  hg_rng_seed(&r, 13);
  for (int ti = 0; ti < NTYPES; ti++)
    for (int s = 0; s < NSEEDS; s++) {
      double q[HG_JOINT_MAXNQ], v[HG_JOINT_MAXNV], a[HG_JOINT_MAXNV];
      case_t c = make_case(HOLD, types[ti], &r);
      int nq = c.p->nq, nv = c.p->nv;
      for (int n = 0; n < 10; n++) {
        hg_profile_eval(c.p, hg_rng_range(&r, -100, 100), q, v, a);
        assert_memory_equal(q, c.p->q0, (size_t)nq * sizeof(double));
        assert_true(norm_inf(v, nv) == 0 && norm_inf(a, nv) == 0);
      }
      assert_true(distance(&c.j, c.q0, c.p->q0) < 1e-15);
      hg_profile_free(c.p);
      for (int kind = VELOCITY; kind <= SINUSOID; kind += 2) {
        c = make_case(kind, types[ti], &r);
        hg_profile_eval(c.p, c.p->t0, q, v, a);
        assert_memory_equal(q, c.p->q0, (size_t)nq * sizeof(double));
        assert_true(distance(&c.j, c.q0, q) < 1e-15);
        if (kind == VELOCITY) assert_true(norm_inf(a, nv) == 0);
        hg_profile_free(c.p);
      }
    }
}

/* the spline passes through every sample, is C2 at interior samples, and holds the ends at rest
 * with v continuous there (|v| within dt = 1e-9 s of an end is at most dt |vdot| ~ 1e-7) */
static void spline_samples_and_smoothness(void **state) {
  hg_rng r;
  hg_rng_seed(&r, 14);
  double wpass = 0, wq = 0, wv = 0, wa = 0, wend = 0;
  const double dt = 1e-9;
  for (int kind = SPLINE; kind <= SPLINE_SMALL; kind++)
    for (int ti = 0; ti < NTYPES; ti++)
      for (int s = 0; s < NSEEDS; s++) {
        case_t c = make_case(kind, types[ti], &r);
        int nq = c.p->nq, nv = c.p->nv;
        double q[HG_JOINT_MAXNQ], v[HG_JOINT_MAXNV], a[HG_JOINT_MAXNV];
        double qm[HG_JOINT_MAXNQ], vm[HG_JOINT_MAXNV], am[HG_JOINT_MAXNV];
        double qp[HG_JOINT_MAXNQ], vp[HG_JOINT_MAXNV], ap[HG_JOINT_MAXNV];
        for (int k = 0; k < NSAMPLE; k++) {
          double tk = c.times[k];
          hg_profile_eval(c.p, tk, q, v, a);
          wpass = fmax(wpass, distance(&c.j, c.qs + nq * k, q));
          if (k == 0 || k == NSAMPLE - 1) {
            /* ends: zero slope, then held at rest */
            double tout = k == 0 ? tk - 0.3 : tk + 0.3, tin = k == 0 ? tk + dt : tk - dt;
            wend = fmax(wend, norm_inf(v, nv));
            hg_profile_eval(c.p, tout, qp, vp, ap);
            assert_memory_equal(qp, q, (size_t)nq * sizeof(double));
            assert_true(norm_inf(vp, nv) == 0 && norm_inf(ap, nv) == 0);
            hg_profile_eval(c.p, tin, qp, vp, ap);
            wend = fmax(wend, norm_inf(vp, nv));
            continue;
          }
          /* interior: q, v and vdot continuous across the sample: the jumps over 2 dt are at
           * most 2 dt times the next derivative (~1e3), 2e-6, against O(1) if not C2 */
          hg_profile_eval(c.p, tk - dt, qm, vm, am);
          hg_profile_eval(c.p, tk + dt, qp, vp, ap);
          wq = fmax(wq, distance(&c.j, qm, qp));
          wv = fmax(wv, hg_test_rel_err(vp, vm, nv));
          wa = fmax(wa, hg_test_rel_err(ap, am, nv));
        }
        hg_profile_free(c.p);
      }
  printf("# spline: worst |q(t_k) (-) q_k| = %.3g; jumps over 2e-9 s at samples: q %.3g, v %.3g, "
         "vdot %.3g; end |v| %.3g\n", wpass, wq, wv, wa, wend);
  assert_true(wpass < 1e-12);
  assert_true(wq < 1e-6 && wv < 1e-5 && wa < 1e-5);
  assert_true(wend < 1e-6);
}

/* max over quaternions of ||q| - 1| in a configuration */
static double quat_drift(const hg_joint *j, const double *q) {
  if (j->type != HG_JOINT_SPHERICAL && j->type != HG_JOINT_FREE) return 0;
  const double *e = j->type == HG_JOINT_FREE ? q + 3 : q;
  return fabs(sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2] + e[3] * e[3]) - 1);
}

/* spherical and free paths stay on the group (unit quaternions), even far from t0 */
static void stays_on_group(void **state) {
  hg_rng r;
  hg_rng_seed(&r, 15);
  double worst = 0;
  for (int ti = NTYPES - 2; ti < NTYPES; ti++)
    for (int kind = 0; kind < NKINDS; kind++)
      for (int s = 0; s < NSEEDS; s++) {
        case_t c = make_case(kind, types[ti], &r);
        double q[HG_JOINT_MAXNQ];
        for (int n = 0; n < 50; n++) {
          double t = n < 40 ? hg_rng_range(&r, c.tlo, c.thi) : hg_rng_range(&r, -1e4, 1e4);
          hg_profile_eval(c.p, t, q, NULL, NULL);
          worst = fmax(worst, quat_drift(&c.j, q));
        }
        hg_profile_free(c.p);
      }
  printf("# spherical/free: worst ||quat| - 1| = %.3g\n", worst);
  assert_true(worst < 1e-15);
}

/* a table turning 450 degrees about z (samples 90 degrees apart) turns one way throughout: the
 * rotation coordinates are unwrapped instead of jumping back at 180 degrees */
static void spline_unwraps_turns(void **state) {
  for (int ti = NTYPES - 2; ti < NTYPES; ti++) {
    hg_joint j = make_joint(types[ti]);
    int nq = hg_joint_nq(j.type), iq = nq - 4; /* the quaternion; w is v[0..2] for both */
    double times[6], qs[6 * 7], q[7], v[6], wmin = 1e9, off = 0;
    const char *why = NULL;
    for (int k = 0; k < 6; k++) {
      double w[3] = {0, 0, 0.5 * PI * k};
      times[k] = k;
      hg_joint_neutral(&j, qs + nq * k);
      if (j.type == HG_JOINT_FREE) qs[nq * k] = 0.1 * k;
      hg_quat_exp(w, qs + nq * k + iq);
    }
    hg_profile *p = hg_profile_spline(&j, 6, times, qs, &why);
    assert_non_null(p);
    for (int n = 1; n < 100; n++) {
      hg_profile_eval(p, 5.0 * n / 100, q, v, NULL);
      wmin = fmin(wmin, v[2]);
      off = fmax(off, fmax(fabs(v[0]), fabs(v[1])));
    }
    /* and it ends at 450 degrees */
    hg_profile_eval(p, 5, q, NULL, NULL);
    printf("# %s turntable: min w_z %.3g, max |w_x|, |w_y| %.3g, end error %.3g\n",
           hg_joint_type_name(j.type), wmin, off, distance(&j, qs + nq * 5, q));
    assert_true(wmin > 0.1);
    assert_true(off < 1e-12);
    assert_true(distance(&j, qs + nq * 5, q) < 1e-12);
    hg_profile_free(p);
  }
}

/* every constructor rejects bad input with a reason */
static void constructor_errors(void **state) {
  hg_joint rev = make_joint(HG_JOINT_REVOLUTE), sph = make_joint(HG_JOINT_SPHERICAL);
  hg_joint fixed = make_joint(HG_JOINT_FIXED), unknown = rev;
  unknown.type = HG_JOINT_NTYPES;
  double q0[4] = {1, 0, 0, 0}, bad[4] = {2, 0, 0, 0}, v[3] = {1, 2, 3}, nan = NAN;
  double t2[2] = {0, 1}, tsame[3] = {0, 1, 1}, tdown[3] = {0, 2, 1}, tnan[2] = {0, NAN};
  double qs[12] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0}, qbad[8] = {1, 0, 0, 0, 0, 0, 0, 0};
  double vnan[3] = {0, NAN, 0};
#define REJECTS(call)                                                                            \
  do {                                                                                           \
    const char *why = NULL;                                                                      \
    hg_profile *p_ = (call);                                                                     \
    assert_null(p_);                                                                             \
    assert_non_null(why);                                                                        \
  } while (0)
  REJECTS(hg_profile_hold(&fixed, 0, q0, &why));
  REJECTS(hg_profile_hold(&unknown, 0, q0, &why));
  REJECTS(hg_profile_hold(NULL, 0, q0, &why));
  REJECTS(hg_profile_hold(&sph, 0, bad, &why));
  REJECTS(hg_profile_hold(&sph, NAN, q0, &why));
  REJECTS(hg_profile_hold(&rev, 0, &nan, &why));
  REJECTS(hg_profile_hold(&rev, 0, NULL, &why));
  REJECTS(hg_profile_velocity(&sph, 0, q0, vnan, &why));
  REJECTS(hg_profile_velocity(&sph, 0, q0, NULL, &why));
  REJECTS(hg_profile_move(&sph, 0, q0, bad, 1, &why));
  REJECTS(hg_profile_move(&sph, 0, bad, q0, 1, &why));
  REJECTS(hg_profile_move(&sph, 0, q0, q0, 0, &why));
  REJECTS(hg_profile_move(&sph, 0, q0, q0, -1, &why));
  REJECTS(hg_profile_move(&sph, 0, q0, q0, INFINITY, &why));
  REJECTS(hg_profile_sinusoid(&sph, 0, q0, v, NAN, 0, &why));
  REJECTS(hg_profile_sinusoid(&sph, 0, q0, vnan, 1, 0, &why));
  REJECTS(hg_profile_spline(&sph, 1, t2, qs, &why));
  REJECTS(hg_profile_spline(&sph, 3, tsame, qs, &why));
  REJECTS(hg_profile_spline(&sph, 3, tdown, qs, &why));
  REJECTS(hg_profile_spline(&sph, 2, tnan, qs, &why));
  REJECTS(hg_profile_spline(&sph, 2, t2, qbad, &why));
  REJECTS(hg_profile_spline(&sph, 2, t2, NULL, &why));
  /* why may be NULL; good input is accepted, and a nearly unit quaternion normalized */
  double near[4] = {1 + 1e-9, 0, 0, 0};
  assert_null(hg_profile_move(&sph, 0, q0, q0, 0, NULL));
  hg_profile *p = hg_profile_spline(&sph, 3, (double[]){0, 1, 2}, qs, NULL);
  assert_non_null(p);
  hg_profile_free(p);
  p = hg_profile_hold(&sph, 0, near, NULL);
  assert_non_null(p);
  assert_true(p->q0[0] == 1);
  hg_profile_free(p);
#undef REJECTS
}

/* the model helper writes the prescribed slices, zeroes the locked rates and leaves free joints */
static void apply_to_model(void **state) {
  hg_rng r;
  hg_rng_seed(&r, 16);
  for (int tree = 0; tree < 20; tree++) {
    hg_model *m = hg_test_random_tree(&r, 2 + tree % 10, tree % 2);
    hg_data *d = hg_data_new(m);
    int nq = m->nq, nv = m->nv, nb = m->nbody;
    hg_profile **pj = calloc((size_t)nb, sizeof *pj);
    size_t bq = sizeof(double) * (size_t)(nq + 1), bv = sizeof(double) * (size_t)(nv + 1);
    double *q = malloc(bq), *q_in = malloc(bq), *v = malloc(bv), *v_in = malloc(bv);
    double *a = malloc(bv), *a_in = malloc(bv);
    double qe[HG_JOINT_MAXNQ], ve[HG_JOINT_MAXNV], ae[HG_JOINT_MAXNV], t = hg_rng_range(&r, 0, 2);
    hg_model_random(m, &r, q_in);
    hg_test_random_vector(&r, v_in, nv, -1, 1);
    hg_test_random_vector(&r, a_in, nv, -1, 1);
    /* joints cycle through free, prescribed and locked; every moving one gets a move */
    for (int i = 1; i < nb; i++) {
      double q1[HG_JOINT_MAXNQ];
      d->mode[i] = (uint8_t)(i % 3);
      if (m->jnt[i].type == HG_JOINT_FIXED) continue;
      hg_joint_random(&m->jnt[i], &r, q1);
      pj[i] = hg_profile_move(&m->jnt[i], 0, q_in + m->q_adr[i], q1, 1.5, NULL);
      assert_non_null(pj[i]);
    }
    memcpy(q, q_in, sizeof(double) * (size_t)nq);
    memcpy(v, v_in, sizeof(double) * (size_t)nv);
    memcpy(a, a_in, sizeof(double) * (size_t)nv);
    assert_int_equal(hg_profiles_apply(m, d, pj, t, q, v, a), 0);
    for (int i = 1; i < nb; i++) {
      int iq = m->q_adr[i], iv = m->v_adr[i], n = m->jnt_nv[i], mq = m->jnt_nq[i];
      size_t sq = (size_t)mq * sizeof(double), sv = (size_t)n * sizeof(double);
      if (d->mode[i] == HG_MODE_PRESCRIBED && pj[i]) {
        hg_profile_eval(pj[i], t, qe, ve, ae);
        assert_memory_equal(q + iq, qe, sq);
        assert_memory_equal(v + iv, ve, sv);
        assert_memory_equal(a + iv, ae, sv);
      } else {
        assert_memory_equal(q + iq, q_in + iq, sq);
        for (int k = 0; k < n; k++) {
          double zv = d->mode[i] == HG_MODE_LOCKED ? 0 : v_in[iv + k];
          double za = d->mode[i] == HG_MODE_LOCKED ? 0 : a_in[iv + k];
          assert_true(v[iv + k] == zv && a[iv + k] == za);
        }
      }
    }
    /* a profile of the wrong joint type is refused and its joint left alone */
    for (int i = 1; i < nb; i++) {
      if (d->mode[i] != HG_MODE_PRESCRIBED || !pj[i]) continue;
      hg_joint other = make_joint(m->jnt[i].type == HG_JOINT_PRISMATIC ? HG_JOINT_REVOLUTE
                                                                        : HG_JOINT_PRISMATIC);
      double z = 0.25;
      hg_profile *wrong = hg_profile_hold(&other, 0, &z, NULL), *keep = pj[i];
      pj[i] = wrong;
      memcpy(v, v_in, sizeof(double) * (size_t)nv);
      d->err[0] = 0;
      assert_int_equal(hg_profiles_apply(m, d, pj, t, NULL, v, NULL), -1);
      assert_true(strlen(d->err) > 0);
      assert_memory_equal(v + m->v_adr[i], v_in + m->v_adr[i],
                          (size_t)m->jnt_nv[i] * sizeof(double));
      pj[i] = keep;
      hg_profile_free(wrong);
      break;
    }
    for (int i = 0; i < nb; i++) hg_profile_free(pj[i]);
    free(pj); free(q); free(q_in); free(v); free(v_in); free(a); free(a_in);
    hg_data_free(d);
    hg_model_free(m);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(rates_match_differences),
      cmocka_unit_test(move_boundaries),
      cmocka_unit_test(hold_velocity_sinusoid_start),
      cmocka_unit_test(spline_samples_and_smoothness),
      cmocka_unit_test(stays_on_group),
      cmocka_unit_test(spline_unwraps_turns),
      cmocka_unit_test(constructor_errors),
      cmocka_unit_test(apply_to_model),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
