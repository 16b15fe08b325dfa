/* pd_ctl.c: controllers for tests/test_controller_lib.c, built as a shared library that includes
 * <hinge/control.h> only, as a user's library would.
 *
 *   pd_step    a PD law: params kp, kd, target; inputs q and v (one number each, in that order);
 *              output tau = kp * (target - q) + kd * (0.0 - v). pd_set changes a gain, pd_save and
 *              pd_load checkpoint the gains and the count of steps made.
 *   fail_step  no init or finish (its state is NULL): writes t, and fails at t >= 0.5
 *   hold_step  writes t before t = 0.5, then NaN (hold); output 1 is always NaN
 *   inf_step   writes +inf at t >= 0.5 */
#include <hinge/control.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

HG_CONTROL_DECLARE_ABI;

typedef struct pd {
  double kp, kd, target;
  double steps;
} pd;

static int set_param(pd *c, const char *name, int n, const double *value, char *err,
                     size_t errlen)
{
  double *slot = strcmp(name, "kp") == 0       ? &c->kp
                 : strcmp(name, "kd") == 0     ? &c->kd
                 : strcmp(name, "target") == 0 ? &c->target
                                               : NULL;
  if (!slot) {
    snprintf(err, errlen, "unknown parameter '%s' (kp, kd, target)", name);
    return 1;
  }
  if (n != 1) {
    snprintf(err, errlen, "parameter '%s' takes one number, not %d", name, n);
    return 1;
  }
  *slot = value[0];
  return 0;
}

HG_CONTROL_API int pd_init(const hg_control_setup *setup, void **state, char *err, size_t errlen)
{
  if (setup->abi != HG_CONTROL_ABI) {
    snprintf(err, errlen, "ABI %d", setup->abi);
    return 1;
  }
  if (setup->nin != 2 || setup->nout != 1) {
    snprintf(err, errlen, "needs inputs q, v and one output (has %d inputs, %d outputs)",
             setup->nin, setup->nout);
    return 1;
  }
  pd *c = calloc(1, sizeof *c);
  if (!c) {
    snprintf(err, errlen, "out of memory");
    return 1;
  }
  for (int i = 0; i < setup->nparam; ++i) {
    const hg_control_param *p = &setup->param[i];
    if (set_param(c, p->name, p->n, p->value, err, errlen) != 0) {
      free(c);
      return 1;
    }
  }
  *state = c;
  return 0;
}

HG_CONTROL_API int pd_step(void *state, double t, const double *in, double *out, char *err,
                           size_t errlen)
{
  pd *c = state;
  (void)t;
  (void)err;
  (void)errlen;
  out[0] = c->kp * (c->target - in[0]) + c->kd * (0.0 - in[1]);
  c->steps += 1;
  return 0;
}

HG_CONTROL_API int pd_set(void *state, const char *param, int n, const double *value, char *err,
                          size_t errlen)
{
  return set_param(state, param, n, value, err, errlen);
}

HG_CONTROL_API int pd_save(void *state, double *buf, int cap)
{
  const pd *c = state;
  if (cap >= 4) {
    buf[0] = c->kp;
    buf[1] = c->kd;
    buf[2] = c->target;
    buf[3] = c->steps;
  }
  return 4;
}

HG_CONTROL_API int pd_load(void *state, const double *buf, int n, char *err, size_t errlen)
{
  pd *c = state;
  if (n != 4) {
    snprintf(err, errlen, "a checkpoint of 4 numbers expected, not %d", n);
    return 1;
  }
  c->kp = buf[0];
  c->kd = buf[1];
  c->target = buf[2];
  c->steps = buf[3];
  return 0;
}

HG_CONTROL_API void pd_finish(void *state) { free(state); }

HG_CONTROL_API int fail_step(void *state, double t, const double *in, double *out, char *err,
                             size_t errlen)
{
  (void)state;
  (void)in;
  if (t >= 0.5) {
    snprintf(err, errlen, "deliberate failure at t = %g", t);
    return 1;
  }
  out[0] = t;
  return 0;
}

HG_CONTROL_API int hold_step(void *state, double t, const double *in, double *out, char *err,
                             size_t errlen)
{
  (void)state;
  (void)in;
  (void)err;
  (void)errlen;
  out[0] = t < 0.5 ? t : NAN;
  out[1] = NAN;
  return 0;
}

HG_CONTROL_API int inf_step(void *state, double t, const double *in, double *out, char *err,
                            size_t errlen)
{
  (void)state;
  (void)in;
  (void)err;
  (void)errlen;
  out[0] = t < 0.5 ? t : INFINITY;
  return 0;
}

/* a library with save but no load */
HG_CONTROL_API int half_step(void *state, double t, const double *in, double *out, char *err,
                             size_t errlen)
{
  (void)state;
  (void)t;
  (void)in;
  (void)out;
  (void)err;
  (void)errlen;
  return 0;
}

HG_CONTROL_API int half_save(void *state, double *buf, int cap)
{
  (void)state;
  (void)buf;
  (void)cap;
  return 0;
}
