/* fuzz_dynamics.c: `hinge dynamics MODEL ACTION` on any standard input. The first byte picks the
 * model (a fixed-base arm, a floating base) and the action; the rest is standard input. */
#include <stdio.h>

#include "cli.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const char *const actions[] = {"fd", "id", "mass", "bias", "hybrid", "lock"};
  static int quiet;
  if (!quiet) {
    quiet = freopen("/dev/null", "w", stdout) != NULL;
  }
  if (size < 1) return 0;
  const char *path = fuzz_file("stdin", ".txt", data + 1, size - 1);
  if (!path || !freopen(path, "r", stdin)) return 0;
  char *argv[8] = {"dynamics", data[0] & 1 ? FUZZ_DATA "/floating.urdf" : FUZZ_DATA "/arm2.urdf",
                   (char *)actions[(data[0] >> 1) % 6], NULL};
  int argc = 3;
  if ((data[0] >> 1) % 6 >= 4) {
    argv[argc++] = "--prescribed";
    argv[argc++] = data[0] & 1 ? "float" : "shoulder";
  }
  hg_cli_dynamics(argc, argv);
  clearerr(stdin);
  remove(path);
  return 0;
}
