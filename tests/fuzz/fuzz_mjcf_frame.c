/* fuzz_mjcf_frame.c: hinge's side of the MJCF reader on any answer of the reader process: the
 * frame decoder (mjcf_frame.c) and, on what it accepts, the converter (mjcf.c) and the model's
 * compile and ABA, all in this process, with no process started per input. The first byte picks
 * the options (fuzz_mjcf_common.h), the rest is the frame. The seeds are the reader's answers for
 * tests/fuzz/seeds/mjcf (and a few models of tests/data/mjcf), so mutations start from
 * well-formed models. */
#include "fuzz_mjcf_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  hg_mjcf_options opt;
  hg_mjcf_compiled mj;
  hg_mjcf_extras x;
  hg_error err;
  hg_se3 pose;
  char why[1200];
  const char *prefix, *tmp = fuzz_mjcf_tmp();
  if (size < 1) return 0;
  fuzz_mjcf_options(data[0], &opt, &pose, &prefix);
  int kind = hg_mjcf_frame_decode(data + 1, size - 1, &mj, why, sizeof why);
  if (kind == 1) hg_mjcf_error_text("fuzz.xml", why, &err);
  if (kind != 0) return 0;
  hg_builder *b = hg_builder_new();
  if (b && hg_mjcf_build(b, &mj, "fuzz.xml", NULL, &pose, prefix, &opt, &x, &err) == 0) {
    fuzz_mjcf_run(b);
    hg_mjcf_extras_free(&x);
  }
  hg_builder_free(b);
  hg_mjcf_compiled_free(&mj);
  fuzz_mjcf_empty(tmp);
  return 0;
}
