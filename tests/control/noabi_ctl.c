/* noabi_ctl.c: libraries hinge must refuse: built without HG_CONTROL_DECLARE_ABI (noabi_ctl), or
 * declaring another ABI version (HG_TEST_ABI: wrongabi_ctl). */
#include <hinge/control.h>

#ifdef HG_TEST_ABI
HG_CONTROL_EXPORT const int hg_control_abi = HG_TEST_ABI;
#endif

HG_CONTROL_API int pd_step(void *state, double t, const double *in, double *out, char *err,
                           size_t errlen)
{
  (void)state;
  (void)t;
  (void)in;
  (void)err;
  (void)errlen;
  out[0] = 0.0;
  return 0;
}
