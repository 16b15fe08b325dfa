/* fuzz_common.h: what the fuzz harnesses share. Each harness defines LLVMFuzzerTestOneInput
 * (libFuzzer's entry point); the readers take file paths, so the input goes to a file first. */
#ifndef HINGE_FUZZ_COMMON_H
#define HINGE_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* writes data to /tmp/hinge_fuzz_<pid>_<tag><ext> and returns that path (static storage), or
 * NULL when it cannot be written */
static inline const char *fuzz_file(const char *tag, const char *ext, const uint8_t *data,
                                    size_t size) {
  static char path[256];
  FILE *f;
  snprintf(path, sizeof path, "/tmp/hinge_fuzz_%ld_%s%s", (long)getpid(), tag, ext);
  f = fopen(path, "wb");
  if (!f) return NULL;
  if (size && fwrite(data, 1, size, f) != size) {
    fclose(f);
    return NULL;
  }
  return fclose(f) == 0 ? path : NULL;
}

#endif
