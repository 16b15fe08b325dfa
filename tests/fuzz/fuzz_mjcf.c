/* fuzz_mjcf.c: the MJCF reader on any bytes, as hinge reads a file: MuJoCo's compiler parses
 * them in the reader process (hinge-mjcf-reader, under limits tighter than hinge's defaults so
 * that its time-outs come before libFuzzer's 10 s), hinge decodes its answer and builds its
 * bodies. MuJoCo's own faults (it frees memory it never allocated on some inputs) stay in that
 * process and come back as errors; what this harness can find is hinge's. The reader is not
 * instrumented, so libFuzzer's coverage is hinge's side only (fuzz_mjcf_frame.c feeds that side
 * mutated answers directly, far faster). */
#include "fuzz_mjcf_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  /* 1 GiB as in hinge, 2 s of CPU time, 5 s of wall time, 64 MiB of answer */
  static const hg_mjcf_isolation iso = {NULL, (size_t)1 << 30, 2, 5, (size_t)64 << 20};
  hg_mjcf_options opt;
  hg_mjcf_extras x;
  hg_error err;
  hg_se3 pose;
  const char *path, *prefix, *tmp = fuzz_mjcf_tmp();
  if (size < 1) return 0;
  fuzz_mjcf_options(data[0], &opt, &pose, &prefix);
  if (!(path = fuzz_file("mjcf", ".xml", data + 1, size - 1))) return 0;
  hg_builder *b = hg_builder_new();
  if (b && hg_mjcf_add_isolated(b, path, NULL, &pose, prefix, &opt, &iso, &x, &err) == 0) {
    fuzz_mjcf_run(b);
    hg_mjcf_extras_free(&x);
  }
  hg_builder_free(b);
  remove(path);
  fuzz_mjcf_empty(tmp);
  return 0;
}
