/* files.c: temporary folders and whole files for tests. */
#include "files.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int hg_test_temp_dir(const char *tag, char *path, size_t len) {
  snprintf(path, len, "/tmp/hinge_test_%s_XXXXXX", tag);
  return mkdtemp(path) ? 0 : -1;
}

void hg_test_remove_dir(const char *path) {
  DIR *d = opendir(path);
  struct dirent *e;
  char file[512];
  while (d && (e = readdir(d))) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    snprintf(file, sizeof file, "%s/%s", path, e->d_name);
    if (unlink(file)) hg_test_remove_dir(file); /* a folder: its files first */
  }
  if (d) closedir(d);
  rmdir(path);
}

char *hg_test_read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
  if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) n = 0;
  if (buf) buf[n] = 0;
  fclose(f);
  if (len) *len = buf ? (size_t)n : 0;
  return buf;
}

long hg_test_resumed_tail(const char *dir_a, const char *dir_b) {
  char path[512];
  size_t la = 0, lb = 0;
  snprintf(path, sizeof path, "%s/trajectory.csv", dir_a);
  char *a = hg_test_read_file(path, &la);
  snprintf(path, sizeof path, "%s/trajectory.csv", dir_b);
  char *b = hg_test_read_file(path, &lb);
  long n = -1;
  const char *rows = b ? strchr(b, '\n') : NULL; /* after the header */
  if (a && rows) {
    size_t nb = lb - (size_t)(rows + 1 - b);
    if (nb > 0 && nb < la && memcmp(a + la - nb, rows + 1, nb) == 0) n = (long)nb;
  }
  free(a);
  free(b);
  return n;
}
