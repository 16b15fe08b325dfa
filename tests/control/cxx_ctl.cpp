// cxx_ctl.cpp: a controller library in C++ (built as C++11 with -Wall -Wextra -Wpedantic):
// <hinge/control.h> gives the functions C linkage through HG_CONTROL_API. gain_step writes
// out[i] = gain * in[i] for the min(nin, nout) first numbers.
#include <hinge/control.h>

#include <cstdio>
#include <new>

HG_CONTROL_DECLARE_ABI;

namespace {
struct Gain {
  double gain = 1.0;
  int n = 0;
};
}  // namespace

HG_CONTROL_API int gain_init(const hg_control_setup *setup, void **state, char *err,
                             size_t errlen)
{
  Gain *g = new (std::nothrow) Gain;
  if (!g) {
    std::snprintf(err, errlen, "out of memory");
    return 1;
  }
  for (int i = 0; i < setup->nparam; ++i)
    if (setup->param[i].n == 1) g->gain = setup->param[i].value[0];
  g->n = setup->nin < setup->nout ? setup->nin : setup->nout;
  *state = g;
  return 0;
}

HG_CONTROL_API int gain_step(void *state, double, const double *in, double *out, char *, size_t)
{
  const Gain *g = static_cast<const Gain *>(state);
  for (int i = 0; i < g->n; ++i) out[i] = g->gain * in[i];
  return 0;
}

HG_CONTROL_API void gain_finish(void *state) { delete static_cast<Gain *>(state); }

// the compiler checks the signatures against the ABI's types
hg_control_init_fn gain_init;
hg_control_step_fn gain_step;
hg_control_finish_fn gain_finish;
