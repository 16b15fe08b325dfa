/* fuzz_common.h: what the fuzz harnesses share. Each harness defines LLVMFuzzerTestOneInput
 * (libFuzzer's entry point); the readers take file paths, so the input goes to a file first. */
#ifndef HINGE_FUZZ_COMMON_H
#define HINGE_FUZZ_COMMON_H

#include <dirent.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
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

/* dst/<entry> -> src/<entry> for every entry of src except skip (the harnesses whose input names
 * other files mirror a source folder with these links) */
static inline void fuzz_link_entries(const char *src, const char *dst, const char *skip) {
  DIR *d = opendir(src);
  struct dirent *e;
  char from[512], to[512];
  while (d && (e = readdir(d))) {
    if (e->d_name[0] == '.' || (skip && strcmp(e->d_name, skip) == 0)) continue;
    snprintf(from, sizeof from, "%s/%s", src, e->d_name);
    snprintf(to, sizeof to, "%s/%s", dst, e->d_name);
    if (symlink(from, to) != 0) { /* already there */ }
  }
  if (d) closedir(d);
}

#endif
