/* integrator.c: the integrator front end: options, checks, construction, advancing, the state and
 * its accessors. It picks a back end (cvode_lie.c, fixed_step.c); what the back ends share is
 * integ_shared.c's. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "integ_internal.h"

static const char *const method_names[] = {"cvode-bdf", "cvode-adams", "rkmk4", "lie-euler"};

void hg_integ_default_options(hg_integ_options *opt, hg_integ_method method) {
  memset(opt, 0, sizeof *opt);
  opt->method = method;
  opt->rtol = 1e-6;
  /* zero absolute tolerances mean rtol x one unit (1 rad, 1 m, 1 rad/s, 1 m/s) */
  opt->atol_angle = opt->atol_length = opt->atol_angvel = opt->atol_linvel = opt->atol_quad = 0;
  opt->max_step = 0;
  opt->recentre = 1.0;
  opt->h = 1e-3;
  opt->t_stop = INFINITY;
  opt->max_steps = 1000000;
}

const char *hg_integ_method_name(hg_integ_method method) {
  if ((int)method < 0 || (int)method > HG_INTEG_LIE_EULER) return "unknown";
  return method_names[method];
}

int hg_integ_method_from_name(const char *name) {
  for (int k = 0; k <= HG_INTEG_LIE_EULER; k++)
    if (name && strcmp(name, method_names[k]) == 0) return k;
  return -1;
}

/* ---- construction ---- */

static int finite_vector(const double *x, int n) {
  for (int k = 0; k < n; k++)
    if (!isfinite(x[k])) return 0;
  return 1;
}

/* 0 when opt is usable for sys, else -1 with err set */
static int check_options(const hg_integ_options *o, double t0, hg_error *err) {
  if ((int)o->method < 0 || (int)o->method > HG_INTEG_LIE_EULER)
    return hg_error_set(err, "unknown integration method %d", (int)o->method), -1;
  if (!(o->rtol > 0 && o->rtol < 1))
    return hg_error_set(err, "rtol must lie in (0, 1), got %g", o->rtol), -1;
  if (!(o->atol_angle >= 0 && o->atol_length >= 0 && o->atol_angvel >= 0 && o->atol_linvel >= 0 && o->atol_quad >= 0) ||
      !isfinite(o->atol_angle + o->atol_length + o->atol_angvel + o->atol_linvel + o->atol_quad))
    return hg_error_set(err, "absolute tolerances must be finite and >= 0"), -1;
  if (!(o->max_step >= 0) || !isfinite(o->max_step))
    return hg_error_set(err, "max_step must be finite and >= 0 (0: no limit), got %g", o->max_step),
           -1;
  if (!(o->recentre > 0 && o->recentre <= HG_INTEG_RECENTRE_MAX))
    return hg_error_set(err, "recentre must lie in (0, %g] rad, got %g", HG_INTEG_RECENTRE_MAX,
                     o->recentre), -1;
  if (!(o->h > 0) || !isfinite(o->h))
    return hg_error_set(err, "the fixed step h must be finite and > 0, got %g", o->h), -1;
  if (!(o->t_stop >= t0))
    return hg_error_set(err, "t_stop = %g lies before t0 = %g", o->t_stop, t0), -1;
  if (o->max_steps <= 0) return hg_error_set(err, "max_steps must be > 0"), -1;
  return 0;
}

/* 0 when sys and the initial state are usable, else -1 with err set */
static int check_system(const hg_system *s, double t0, const double *q0, const double *v0,
                        hg_error *err) {
  if (!s || !s->m || !s->accel) return hg_error_set(err, "the system needs a model and accel"), -1;
  if (s->m->nv <= 0) return hg_error_set(err, "the model has no degrees of freedom"), -1;
  if (s->nquad < 0 || (s->nquad > 0 && !s->quad))
    return hg_error_set(err, "nquad = %d needs a quadrature function", s->nquad), -1;
  if (s->nroot < 0 || (s->nroot > 0 && !s->roots))
    return hg_error_set(err, "nroot = %d needs a root function", s->nroot), -1;
  for (int k = 0; s->root_dir && k < s->nroot; k++)
    if (s->root_dir[k] < -1 || s->root_dir[k] > 1)
      return hg_error_set(err, "root_dir[%d] = %d is not -1, 0 or +1", k, s->root_dir[k]), -1;
  if (!isfinite(t0)) return hg_error_set(err, "t0 is not finite"), -1;
  if (!q0 || !v0 || !finite_vector(q0, s->m->nq) || !finite_vector(v0, s->m->nv))
    return hg_error_set(err, "the initial state is missing or not finite"), -1;
  return 0;
}

hg_integrator *hg_integrator_new(const hg_system *sys, const hg_integ_options *opt, double t0,
                                 const double *q0, const double *v0, hg_error *err) {
  hg_integ_options o;
  if (opt) o = *opt;
  else hg_integ_default_options(&o, HG_INTEG_CVODE_ADAMS);
  if (check_system(sys, t0, q0, v0, err) || check_options(&o, t0, err)) return NULL;
  hg_integrator *I = calloc(1, sizeof *I);
  if (!I) return hg_error_set(err, "out of memory"), NULL;
  I->sys = *sys;
  I->opt = o;
  I->m = sys->m;
  I->nq = sys->m->nq;
  I->nv = sys->m->nv;
  I->nroot = sys->nroot;
  I->nquad = sys->nquad;
  I->w = calloc((size_t)I->nquad + 1, sizeof(double));
  I->q = malloc((size_t)I->nq * sizeof(double));
  I->v = malloc((size_t)I->nv * sizeof(double));
  I->root_dir = calloc((size_t)I->nroot + 1, sizeof(int));
  I->roots_found = calloc((size_t)I->nroot + 1, sizeof(int));
  if (!I->q || !I->v || !I->w || !I->root_dir || !I->roots_found) {
    hg_integrator_free(I);
    return hg_error_set(err, "out of memory"), NULL;
  }
  for (int k = 0; sys->root_dir && k < I->nroot; k++) I->root_dir[k] = sys->root_dir[k];
  I->t = t0;
  memcpy(I->q, q0, (size_t)I->nq * sizeof(double));
  memcpy(I->v, v0, (size_t)I->nv * sizeof(double));
  int cvode = o.method == HG_INTEG_CVODE_BDF || o.method == HG_INTEG_CVODE_ADAMS;
  if ((cvode ? hg_integ_cvode_init(I, err) : hg_integ_fixed_init(I, err)) != 0) {
    hg_integrator_free(I);
    return NULL;
  }
  return I;
}

void hg_integrator_free(hg_integrator *I) {
  if (!I) return;
  if (I->ops) I->ops->release(I);
  free(I->q);
  free(I->v);
  free(I->w);
  free(I->root_dir);
  free(I->roots_found);
  free(I);
}

/* ---- advancing ---- */

/* integrates toward tout (clipped at t_stop), at most one internal step when one_step */
static int advance(hg_integrator *I, double tout, int one_step) {
  if (I->failed) return I->failed; /* keep the message of the failure until a reset */
  if (!(tout >= I->t))
    return hg_integ_fail(I, HG_INTEG_ERR_INPUT, "cannot integrate from t = %.17g back to %.17g",
                         I->t, tout);
  if (I->t >= I->opt.t_stop && tout > I->t) return HG_INTEG_TSTOP;
  double target = tout < I->opt.t_stop ? tout : I->opt.t_stop;
  memset(I->roots_found, 0, (size_t)I->nroot * sizeof(int));
  if (target == I->t) return HG_INTEG_OK;
  int rc = I->ops->advance(I, target, one_step);
  if (rc == HG_INTEG_ROOT) I->stats.events++;
  if (rc == HG_INTEG_OK && target < tout && I->t == target) return HG_INTEG_TSTOP;
  return rc;
}

int hg_integrator_advance(hg_integrator *I, double tout) { return advance(I, tout, 0); }

void hg_integrator_limit_step(hg_integrator *I, double h) {
  double hmax = I->opt.max_step > 0 ? I->opt.max_step : INFINITY;
  if (h > 0 && h < hmax) hmax = h;
  if (I->ops->limit_step) I->ops->limit_step(I, isfinite(hmax) ? hmax : 0);
}

int hg_integrator_step(hg_integrator *I, double tlimit) { return advance(I, tlimit, 1); }

int hg_integrator_reset(hg_integrator *I, double t, const double *q, const double *v) {
  if (!isfinite(t) || !q || !v || !finite_vector(q, I->nq) || !finite_vector(v, I->nv))
    return hg_integ_fail(I, HG_INTEG_ERR_INPUT, "reset: the state is missing or not finite");
  I->t = t;
  if (q != I->q) memcpy(I->q, q, (size_t)I->nq * sizeof(double));
  if (v != I->v) memcpy(I->v, v, (size_t)I->nv * sizeof(double));
  I->failed = 0;
  I->msg[0] = 0;
  memset(I->roots_found, 0, (size_t)I->nroot * sizeof(int));
  I->stats.resets++;
  return I->ops->reset(I);
}

/* ---- accessors ---- */

double hg_integrator_t(const hg_integrator *I) { return I->t; }
const double *hg_integrator_q(const hg_integrator *I) { return I->q; }
const double *hg_integrator_v(const hg_integrator *I) { return I->v; }
const double *hg_integrator_quad(const hg_integrator *I) { return I->w; }

void hg_integrator_set_quad(hg_integrator *I, const double *w) {
  memcpy(I->w, w, (size_t)I->nquad * sizeof(double));
  I->failed = 0;
  I->ops->reset(I);
}
const int *hg_integrator_roots(const hg_integrator *I) { return I->roots_found; }
const char *hg_integrator_error_message(const hg_integrator *I) { return I->msg; }

void hg_integrator_stats(const hg_integrator *I, hg_integ_stats *stats) {
  *stats = I->stats;
  I->ops->stats(I, stats);
}
