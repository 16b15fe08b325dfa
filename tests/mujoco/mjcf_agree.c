/* mjcf_agree: for each MJCF file given, one line: whether MuJoCo and hinge load it, nv, and the
 * worst relative errors of hinge's M, bias, ID and FD against MuJoCo's at random states
 * (mjcf_compare.h). tests/tools/menagerie.sh runs it over MuJoCo Menagerie.
 *   mjcf_agree [--states N] FILE...
 * Output, tab-separated: file, status (agree, differs, hinge refuses, MuJoCo refuses), nv,
 * err_M, err_bias, err_id, err_fd, and the reason of a refusal. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mjcf_compare.h"

int main(int argc, char **argv) {
  int states = 20, first = 1, bad = 0;
  if (argc > 2 && strcmp(argv[1], "--states") == 0) states = atoi(argv[2]), first = 3;
  if (first >= argc || states < 1) {
    fprintf(stderr, "usage: mjcf_agree [--states N] FILE...\n");
    return 2;
  }
  for (int k = first; k < argc; k++) {
    hg_mjcf_agreement a;
    hg_mjcf_compare(argv[k], states, 12345u + (unsigned)k, &a);
    if (!a.mujoco_loads) {
      printf("%s\tMuJoCo refuses\t-\t-\t-\t-\t-\t%s\n", argv[k], a.why);
      continue;
    }
    if (!a.hinge_loads) {
      printf("%s\thinge refuses\t%d\t-\t-\t-\t-\t%s\n", argv[k], a.nv, a.why);
      bad++;
      continue;
    }
    double worst = fmax(fmax(a.err_M, a.err_bias), fmax(a.err_id, a.err_fd));
    int ok = worst <= 1e-9;
    bad += !ok;
    printf("%s\t%s\t%d\t%.1e\t%.1e\t%.1e\t%.1e\t\n", argv[k], ok ? "agree" : "differs", a.nv,
           a.err_M, a.err_bias, a.err_id, a.err_fd);
  }
  return bad ? 1 : 0;
}
