/* replay.c: runs a fuzz harness on the files named on the command line (the regression inputs
 * and seeds of tests/fuzz, under CTest), without libFuzzer. A crash or a sanitizer report fails. */
#include <stdio.h>
#include <stdlib.h>

#include "fuzz_common.h"

int main(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    FILE *f = fopen(argv[i], "rb");
    unsigned char *buf = NULL;
    long n;
    if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) ||
        !(buf = malloc((size_t)n + 1)) || fread(buf, 1, (size_t)n, f) != (size_t)n) {
      fprintf(stderr, "replay: cannot read %s\n", argv[i]);
      return 2;
    }
    fclose(f);
    LLVMFuzzerTestOneInput(buf, (size_t)n);
    free(buf);
  }
  printf("replayed %d inputs\n", argc - 1);
  return 0;
}
